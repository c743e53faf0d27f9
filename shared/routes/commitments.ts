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

export const commitmentRoutes = [
  listCommitments,
  getCommitmentSummary,
  listExpiringCommitments,
  simulateCommitment,
];
