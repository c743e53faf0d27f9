import { AlertIdParams, SnoozeBody } from '../domain/alerts/schemas';
import {
  BudgetAlertBody,
  BudgetAlertHistoryPageSchema,
  BudgetAlertPageSchema,
  BudgetAlertRecordSchema,
  ListBudgetAlertsQuery,
} from '../domain/budgets/alerts/schemas';
import { PageQuerySchema } from '../domain/common/enums';
import { route } from '../http/route';

const tag = 'Alerts';

export const createBudgetAlert = route({
  id: 'createBudgetAlert',
  method: 'POST',
  path: '/alerts-v2/budgetAlerts',
  entry: 'budget-alerts/create-budget-alert',
  auth: 'member',
  tag,
  summary: 'Create a budget alert: thresholds on a budget month, per line or in total (docs/budgets.md)',
  body: BudgetAlertBody,
  successStatus: 201,
  response: BudgetAlertRecordSchema,
});

export const listBudgetAlerts = route({
  id: 'listBudgetAlerts',
  method: 'GET',
  path: '/alerts-v2/budgetAlerts',
  entry: 'budget-alerts/list-budget-alerts',
  auth: 'member',
  tag,
  summary: 'List the organisation’s budget alerts, newest first (budgetId: one budget’s)',
  query: ListBudgetAlertsQuery,
  response: BudgetAlertPageSchema,
});

export const getBudgetAlert = route({
  id: 'getBudgetAlert',
  method: 'GET',
  path: '/alerts-v2/budgetAlerts/{id}',
  entry: 'budget-alerts/get-budget-alert',
  auth: 'member',
  tag,
  summary: 'Read a budget alert with its thresholds (ETag: its version)',
  params: AlertIdParams,
  response: BudgetAlertRecordSchema,
});

export const updateBudgetAlert = route({
  id: 'updateBudgetAlert',
  method: 'PUT',
  path: '/alerts-v2/budgetAlerts/{id}',
  entry: 'budget-alerts/update-budget-alert',
  auth: 'member',
  tag,
  summary: 'Replace a budget alert’s definition (If-Match: "<version>"; 409 when stale)',
  params: AlertIdParams,
  body: BudgetAlertBody,
  response: BudgetAlertRecordSchema,
});

export const archiveBudgetAlert = route({
  id: 'archiveBudgetAlert',
  method: 'DELETE',
  path: '/alerts-v2/budgetAlerts/{id}',
  entry: 'budget-alerts/archive-budget-alert',
  auth: 'member',
  tag,
  summary: 'Archive a budget alert (sets archivedAt; idempotent)',
  params: AlertIdParams,
  response: BudgetAlertRecordSchema,
});

export const snoozeBudgetAlert = route({
  id: 'snoozeBudgetAlert',
  method: 'POST',
  path: '/alerts-v2/budgetAlerts/{id}/snooze',
  entry: 'budget-alerts/snooze-budget-alert',
  auth: 'member',
  tag,
  summary: 'Snooze a budget alert until a time (sets snoozedUntil)',
  params: AlertIdParams,
  body: SnoozeBody,
  response: BudgetAlertRecordSchema,
});

export const unsnoozeBudgetAlert = route({
  id: 'unsnoozeBudgetAlert',
  method: 'DELETE',
  path: '/alerts-v2/budgetAlerts/{id}/snooze',
  entry: 'budget-alerts/unsnooze-budget-alert',
  auth: 'member',
  tag,
  summary: 'End a budget alert’s snooze (snoozedUntil back to null)',
  params: AlertIdParams,
  response: BudgetAlertRecordSchema,
});

export const budgetAlertHistory = route({
  id: 'budgetAlertHistory',
  method: 'GET',
  path: '/alerts-v2/budgetAlerts/{id}/history',
  entry: 'budget-alerts/budget-alert-history',
  auth: 'member',
  tag,
  summary: 'Evaluations of a budget alert, newest first (each threshold of each line checked)',
  params: AlertIdParams,
  query: PageQuerySchema,
  response: BudgetAlertHistoryPageSchema,
});

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
