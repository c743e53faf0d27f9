import {
  AlertIdParams,
  AlertPageSchema,
  AlertRecordSchema,
  BacktestResponse,
  CreateAlertBody,
  HistoryPageSchema,
  ListAlertsQuery,
  SendTestBody,
  SendTestResponse,
  SnoozeBody,
  UpdateAlertBody,
  WidgetDataSchema,
} from '../domain/alerts/schemas';
import { PageQuerySchema } from '../domain/common/enums';
import { route } from '../http/route';

const tag = 'Alerts';

export const createCostAlert = route({
  id: 'createCostAlert',
  method: 'POST',
  path: '/alerts-v2/costAlerts',
  entry: 'alerts/create-cost-alert',
  auth: 'member',
  tag,
  summary: 'Create a cost alert: condition-based, threshold-based or period-change (see docs/alerts.md)',
  body: CreateAlertBody,
  successStatus: 201,
  // Reads the warehouse's usage metrics when a metric query names no datasource (save-time check).
  usesWarehouse: true,
  response: AlertRecordSchema,
});

export const listCostAlerts = route({
  id: 'listCostAlerts',
  method: 'GET',
  path: '/alerts-v2/costAlerts',
  entry: 'alerts/list-cost-alerts',
  auth: 'member',
  tag,
  summary: 'List the organisation’s cost alerts, newest first (not shown in the spec)',
  query: ListAlertsQuery,
  response: AlertPageSchema,
});

export const getCostAlertWidgetData = route({
  id: 'getCostAlertWidgetData',
  method: 'GET',
  path: '/alerts-v2/costAlerts/{id}/widgetData',
  entry: 'alerts/get-widget-data',
  auth: 'member',
  tag,
  summary: 'One cost alert with its thresholds and its last 30 complete days, the rule drawn over them',
  params: AlertIdParams,
  response: WidgetDataSchema,
  // The recent series is read through the query engine.
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const updateCostAlert = route({
  id: 'updateCostAlert',
  method: 'PUT',
  path: '/alerts-v2/costAlerts/{id}',
  entry: 'alerts/update-cost-alert',
  auth: 'member',
  tag,
  summary:
    'Replace a cost alert’s definition (If-Match: "<version>" makes it conditional; not shown in the spec)',
  params: AlertIdParams,
  body: UpdateAlertBody,
  // Reads the warehouse's usage metrics when a metric query names no datasource (save-time check).
  usesWarehouse: true,
  response: AlertRecordSchema,
});

export const archiveCostAlert = route({
  id: 'archiveCostAlert',
  method: 'DELETE',
  path: '/alerts-v2/costAlerts/{id}',
  entry: 'alerts/archive-cost-alert',
  auth: 'member',
  tag,
  summary: 'Archive a cost alert (sets archivedAt; idempotent; not shown in the spec)',
  params: AlertIdParams,
  response: AlertRecordSchema,
});

export const snoozeCostAlert = route({
  id: 'snoozeCostAlert',
  method: 'POST',
  path: '/alerts-v2/costAlerts/{id}/snooze',
  entry: 'alerts/snooze-cost-alert',
  auth: 'member',
  tag,
  summary: 'Snooze a cost alert until a time (sets snoozedUntil; not shown in the spec)',
  params: AlertIdParams,
  body: SnoozeBody,
  response: AlertRecordSchema,
});

export const unsnoozeCostAlert = route({
  id: 'unsnoozeCostAlert',
  method: 'DELETE',
  path: '/alerts-v2/costAlerts/{id}/snooze',
  entry: 'alerts/unsnooze-cost-alert',
  auth: 'member',
  tag,
  summary: 'End a cost alert’s snooze (snoozedUntil back to null; not shown in the spec)',
  params: AlertIdParams,
  response: AlertRecordSchema,
});

export const costAlertHistory = route({
  id: 'costAlertHistory',
  method: 'GET',
  path: '/alerts-v2/costAlerts/{id}/history',
  entry: 'alerts/alert-history',
  auth: 'member',
  tag,
  summary: 'Evaluations of a cost alert, newest first (not shown in the spec)',
  params: AlertIdParams,
  query: PageQuerySchema,
  response: HistoryPageSchema,
});

export const sendBudgetAlertTest = route({
  id: 'sendBudgetAlertTest',
  method: 'POST',
  path: '/alerts-v2/budgetAlerts/sendTest',
  entry: 'alerts/send-test',
  auth: 'member',
  tag,
  summary: 'Send a sample notification through the delivery path (EMAIL, SLACK or TEAMS)',
  body: SendTestBody,
  response: SendTestResponse,
  sendsTo: ['notifications'],
});

export const backtestCostAlert = route({
  id: 'backtestCostAlert',
  method: 'POST',
  path: '/alerts-v2/costAlerts/backtest',
  entry: 'alerts/backtest-cost-alert',
  auth: 'member',
  tag,
  summary:
    'Replay an alert body over the last 90 complete days: the days it would have fired and the notifications dedup would have sent (nothing stored)',
  body: CreateAlertBody,
  response: BacktestResponse,
  usesWarehouse: true,
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const alertRoutes = [
  createCostAlert,
  listCostAlerts,
  getCostAlertWidgetData,
  updateCostAlert,
  archiveCostAlert,
  snoozeCostAlert,
  unsnoozeCostAlert,
  costAlertHistory,
  sendBudgetAlertTest,
  backtestCostAlert,
];
