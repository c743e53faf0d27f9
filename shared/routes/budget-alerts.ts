import { AlertIdParams, SnoozeBody } from '../domain/alerts/schemas';
import {
  BudgetAlertBody,
  BudgetAlertHistoryPageSchema,
  BudgetAlertPageSchema,
  BudgetAlertRecordSchema,
  ListBudgetAlertsQuery,
} from '../domain/budgets/alerts/schemas';
import { PageQuerySchema } from '../model/enum-schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Alerts', folder: 'budget-alerts' };

export const createBudgetAlert = declare(AREA, 'POST /alerts-v2/budgetAlerts', 'createBudgetAlert', {
  auth: 'member',
  summary: 'Create a budget alert: thresholds on a budget month, per line or in total (docs/budgets.md)',
  body: BudgetAlertBody,
  successStatus: 201,
  response: BudgetAlertRecordSchema,
});

export const listBudgetAlerts = declare(AREA, 'GET /alerts-v2/budgetAlerts', 'listBudgetAlerts', {
  auth: 'member',
  summary: 'List the organisation’s budget alerts, newest first (budgetId: one budget’s)',
  query: ListBudgetAlertsQuery,
  response: BudgetAlertPageSchema,
});

export const getBudgetAlert = declare(AREA, 'GET /alerts-v2/budgetAlerts/{id}', 'getBudgetAlert', {
  auth: 'member',
  summary: 'Read a budget alert with its thresholds (ETag: its version)',
  params: AlertIdParams,
  response: BudgetAlertRecordSchema,
});

export const updateBudgetAlert = declare(AREA, 'PUT /alerts-v2/budgetAlerts/{id}', 'updateBudgetAlert', {
  auth: 'member',
  summary: 'Replace a budget alert’s definition (If-Match: "<version>"; 409 when stale)',
  params: AlertIdParams,
  body: BudgetAlertBody,
  response: BudgetAlertRecordSchema,
});

export const archiveBudgetAlert = declare(AREA, 'DELETE /alerts-v2/budgetAlerts/{id}', 'archiveBudgetAlert', {
  auth: 'member',
  summary: 'Archive a budget alert (sets archivedAt; idempotent)',
  params: AlertIdParams,
  response: BudgetAlertRecordSchema,
});

export const snoozeBudgetAlert = declare(
  AREA,
  'POST /alerts-v2/budgetAlerts/{id}/snooze',
  'snoozeBudgetAlert',
  {
    auth: 'member',
    summary: 'Snooze a budget alert until a time (sets snoozedUntil)',
    params: AlertIdParams,
    body: SnoozeBody,
    response: BudgetAlertRecordSchema,
  },
);

export const unsnoozeBudgetAlert = declare(
  AREA,
  'DELETE /alerts-v2/budgetAlerts/{id}/snooze',
  'unsnoozeBudgetAlert',
  {
    auth: 'member',
    summary: 'End a budget alert’s snooze (snoozedUntil back to null)',
    params: AlertIdParams,
    response: BudgetAlertRecordSchema,
  },
);

export const budgetAlertHistory = declare(
  AREA,
  'GET /alerts-v2/budgetAlerts/{id}/history',
  'budgetAlertHistory',
  {
    auth: 'member',
    summary: 'Evaluations of a budget alert, newest first (each threshold of each line checked)',
    params: AlertIdParams,
    query: PageQuerySchema,
    response: BudgetAlertHistoryPageSchema,
  },
);

export const budgetAlertRoutes = [
  createBudgetAlert,
  listBudgetAlerts,
  getBudgetAlert,
  updateBudgetAlert,
  archiveBudgetAlert,
  snoozeBudgetAlert,
  unsnoozeBudgetAlert,
  budgetAlertHistory,
];
