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
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Commitments', folder: 'commitments' };
/** The expiring-commitment alerts: listed with the other alerts, built with the commitments. */
const ALERTS_AREA: Area = { tag: 'Alerts', folder: 'commitments' };

export const listCommitments = declare(AREA, 'GET /commitments', 'listCommitments', {
  auth: 'member',
  summary:
    'Commitment discounts (reservations, savings plans, committed use discounts) with their terms and, for the period, cost, used, unused, utilisation, savings and effective savings rate',
  query: InventoryQuery,
  response: InventorySchema,
  // A billing row without an exchange rate to the reporting currency (docs/currency.md).
  statuses: [422],
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const getCommitmentSummary = declare(AREA, 'GET /commitments/summary', 'getCommitmentSummary', {
  auth: 'member',
  summary:
    'Utilisation, coverage, unused cost and effective savings rate per day, week or month, by provider, account, type or service',
  query: SummaryQuery,
  response: SummarySchema,
  statuses: [422],
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const listExpiringCommitments = declare(AREA, 'GET /commitments/expiring', 'listExpiringCommitments', {
  auth: 'member',
  summary: 'Commitments whose term ends within the next 30, 60 or 90 days, soonest first',
  query: ExpiringQuery,
  response: ExpiringSchema,
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const simulateCommitment = declare(AREA, 'POST /commitments/simulate', 'simulateCommitment', {
  auth: 'member',
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

export const createCommitmentAlert = declare(
  ALERTS_AREA,
  'POST /alerts-v2/commitmentAlerts',
  'createCommitmentAlert',
  {
    auth: 'member',
    summary:
      'Create an alert for commitments ending within 30, 60 or 90 days: each commitment is announced once per window (docs/commitments.md)',
    body: CreateCommitmentAlertBody,
    successStatus: 201,
    response: CommitmentAlertSchema,
  },
);

export const listCommitmentAlerts = declare(
  ALERTS_AREA,
  'GET /alerts-v2/commitmentAlerts',
  'listCommitmentAlerts',
  {
    auth: 'member',
    summary: 'List the organisation’s expiring-commitment alerts, newest first',
    query: ListCommitmentAlertsQuery,
    response: CommitmentAlertPageSchema,
  },
);

export const archiveCommitmentAlert = declare(
  ALERTS_AREA,
  'DELETE /alerts-v2/commitmentAlerts/{id}',
  'archiveCommitmentAlert',
  {
    auth: 'member',
    summary: 'Archive an expiring-commitment alert (sets archivedAt; idempotent): it sends nothing again',
    params: CommitmentAlertIdParams,
    response: CommitmentAlertSchema,
  },
);

export const snoozeCommitmentAlert = declare(
  ALERTS_AREA,
  'POST /alerts-v2/commitmentAlerts/{id}/snooze',
  'snoozeCommitmentAlert',
  {
    auth: 'member',
    summary: 'Snooze an expiring-commitment alert until a time: it sends nothing until then',
    params: CommitmentAlertIdParams,
    body: CommitmentAlertSnoozeBody,
    response: CommitmentAlertSchema,
  },
);

export const updateCommitmentAlert = declare(
  ALERTS_AREA,
  'PUT /alerts-v2/commitmentAlerts/{id}',
  'updateCommitmentAlert',
  {
    auth: 'member',
    summary:
      'Replace an expiring-commitment alert’s definition with the create body (If-Match: "<version>" makes it conditional)',
    params: CommitmentAlertIdParams,
    body: CreateCommitmentAlertBody,
    response: CommitmentAlertSchema,
  },
);

export const unsnoozeCommitmentAlert = declare(
  ALERTS_AREA,
  'DELETE /alerts-v2/commitmentAlerts/{id}/snooze',
  'unsnoozeCommitmentAlert',
  {
    auth: 'member',
    summary: 'End an expiring-commitment alert’s snooze (snoozedUntil back to null; idempotent)',
    params: CommitmentAlertIdParams,
    response: CommitmentAlertSchema,
  },
);

export const commitmentRoutes = [
  listCommitments,
  getCommitmentSummary,
  listExpiringCommitments,
  simulateCommitment,
  createCommitmentAlert,
  listCommitmentAlerts,
  archiveCommitmentAlert,
  snoozeCommitmentAlert,
  updateCommitmentAlert,
  unsnoozeCommitmentAlert,
];
