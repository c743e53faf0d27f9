import {
  CommitmentAlertIdParams,
  CommitmentAlertPageSchema,
  CommitmentAlertSchema,
  CommitmentAlertSnoozeBody,
  CreateCommitmentAlertBody,
  ListCommitmentAlertsQuery,
} from '../domain/commitments/alert-resource';
import {
  ExpiringQuery,
  ExpiringSchema,
  InventoryQuery,
  InventorySchema,
  SimulateBody,
  SimulationSchema,
  SummaryQuery,
  SummarySchema,
} from '../domain/commitments/schemas';
import { route } from '../http/route';

const tag = 'Commitments';

export const listCommitments = route({
  id: 'listCommitments',
  method: 'GET',
  path: '/commitments',
  entry: 'commitments/list-commitments',
  auth: 'member',
  tag,
  summary:
    'Commitment discounts (reservations, savings plans, committed use discounts) with their terms and, for the period, cost, used, unused, utilisation, savings and effective savings rate',
  query: InventoryQuery,
  response: InventorySchema,
  // A billing row without an exchange rate to the reporting currency (docs/currency.md).
  statuses: [422],
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const getCommitmentSummary = route({
  id: 'getCommitmentSummary',
  method: 'GET',
  path: '/commitments/summary',
  entry: 'commitments/get-commitment-summary',
  auth: 'member',
  tag,
  summary:
    'Utilisation, coverage, unused cost and effective savings rate per day, week or month, by provider, account, type or service',
  query: SummaryQuery,
  response: SummarySchema,
  statuses: [422],
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const listExpiringCommitments = route({
  id: 'listExpiringCommitments',
  method: 'GET',
  path: '/commitments/expiring',
  entry: 'commitments/list-expiring-commitments',
  auth: 'member',
  tag,
  summary: 'Commitments whose term ends within the next 30, 60 or 90 days, soonest first',
  query: ExpiringQuery,
  response: ExpiringSchema,
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const simulateCommitment = route({
  id: 'simulateCommitment',
  method: 'POST',
  path: '/commitments/simulate',
  entry: 'commitments/simulate-commitment',
  auth: 'member',
  tag,
  summary:
    'Simulate savings-plan commitment levels ($/hour) over the hourly eligible on-demand usage of a 7, 30 or 60-day lookback: utilisation, coverage, net savings, break-even month and the recommended level',
  body: SimulateBody,
  response: SimulationSchema,
  // No savings-plan rate in the export (and none given), no billing data, or a missing exchange rate.
  statuses: [422],
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const createCommitmentAlert = route({
  id: 'createCommitmentAlert',
  method: 'POST',
  path: '/alerts-v2/commitmentAlerts',
  entry: 'commitments/create-commitment-alert',
  auth: 'member',
  tag: 'Alerts',
  summary:
    'Create an alert for commitments ending within 30, 60 or 90 days: each commitment is announced once per window (docs/commitments.md)',
  body: CreateCommitmentAlertBody,
  successStatus: 201,
  response: CommitmentAlertSchema,
});

export const listCommitmentAlerts = route({
  id: 'listCommitmentAlerts',
  method: 'GET',
  path: '/alerts-v2/commitmentAlerts',
  entry: 'commitments/list-commitment-alerts',
  auth: 'member',
  tag: 'Alerts',
  summary: 'List the organisation’s expiring-commitment alerts, newest first',
  query: ListCommitmentAlertsQuery,
  response: CommitmentAlertPageSchema,
});

export const archiveCommitmentAlert = route({
  id: 'archiveCommitmentAlert',
  method: 'DELETE',
  path: '/alerts-v2/commitmentAlerts/{id}',
  entry: 'commitments/archive-commitment-alert',
  auth: 'member',
  tag: 'Alerts',
  summary: 'Archive an expiring-commitment alert (sets archivedAt; idempotent): it sends nothing again',
  params: CommitmentAlertIdParams,
  response: CommitmentAlertSchema,
});

export const snoozeCommitmentAlert = route({
  id: 'snoozeCommitmentAlert',
  method: 'POST',
  path: '/alerts-v2/commitmentAlerts/{id}/snooze',
  entry: 'commitments/snooze-commitment-alert',
  auth: 'member',
  tag: 'Alerts',
  summary: 'Snooze an expiring-commitment alert until a time: it sends nothing until then',
  params: CommitmentAlertIdParams,
  body: CommitmentAlertSnoozeBody,
  response: CommitmentAlertSchema,
});

export const commitmentRoutes = [
  listCommitments,
  getCommitmentSummary,
  listExpiringCommitments,
  simulateCommitment,
  createCommitmentAlert,
  listCommitmentAlerts,
  archiveCommitmentAlert,
  snoozeCommitmentAlert,
];
