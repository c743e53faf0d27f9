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
import { PageQuerySchema } from '../model/enum-schemas';
import { type Area, declare } from './declare';

const AREA: Area = { tag: 'Alerts', folder: 'alerts' };

export const createCostAlert = declare(AREA, 'POST /alerts-v2/costAlerts', 'createCostAlert', {
  auth: 'member',
  summary: 'Create a cost alert: condition-based, threshold-based or period-change (see docs/alerts.md)',
  body: CreateAlertBody,
  successStatus: 201,
  // Reads the warehouse's usage metrics when a metric query names no datasource (save-time check).
  usesWarehouse: true,
  response: AlertRecordSchema,
});

export const listCostAlerts = declare(AREA, 'GET /alerts-v2/costAlerts', 'listCostAlerts', {
  auth: 'member',
  summary: 'List the organisation’s cost alerts, newest first (not shown in the spec)',
  query: ListAlertsQuery,
  response: AlertPageSchema,
});

export const getCostAlertWidgetData = declare(
  AREA,
  'GET /alerts-v2/costAlerts/{id}/widgetData',
  'getCostAlertWidgetData',
  {
    entry: 'get-widget-data',
    auth: 'member',
    summary: 'One cost alert with its thresholds and its last 30 complete days, the rule drawn over them',
    params: AlertIdParams,
    response: WidgetDataSchema,
    // The recent series is read through the query engine.
    usesWarehouse: true,
    memoryMb: 512,
    timeoutSeconds: 29,
  },
);

export const updateCostAlert = declare(AREA, 'PUT /alerts-v2/costAlerts/{id}', 'updateCostAlert', {
  auth: 'member',
  summary:
    'Replace a cost alert’s definition (If-Match: "<version>" makes it conditional; not shown in the spec)',
  params: AlertIdParams,
  body: UpdateAlertBody,
  // Reads the warehouse's usage metrics when a metric query names no datasource (save-time check).
  usesWarehouse: true,
  response: AlertRecordSchema,
});

export const archiveCostAlert = declare(AREA, 'DELETE /alerts-v2/costAlerts/{id}', 'archiveCostAlert', {
  auth: 'member',
  summary: 'Archive a cost alert (sets archivedAt; idempotent; not shown in the spec)',
  params: AlertIdParams,
  response: AlertRecordSchema,
});

export const snoozeCostAlert = declare(AREA, 'POST /alerts-v2/costAlerts/{id}/snooze', 'snoozeCostAlert', {
  auth: 'member',
  summary: 'Snooze a cost alert until a time (sets snoozedUntil; not shown in the spec)',
  params: AlertIdParams,
  body: SnoozeBody,
  response: AlertRecordSchema,
});

export const unsnoozeCostAlert = declare(
  AREA,
  'DELETE /alerts-v2/costAlerts/{id}/snooze',
  'unsnoozeCostAlert',
  {
    auth: 'member',
    summary: 'End a cost alert’s snooze (snoozedUntil back to null; not shown in the spec)',
    params: AlertIdParams,
    response: AlertRecordSchema,
  },
);

export const costAlertHistory = declare(AREA, 'GET /alerts-v2/costAlerts/{id}/history', 'costAlertHistory', {
  entry: 'alert-history',
  auth: 'member',
  summary: 'Evaluations of a cost alert, newest first (not shown in the spec)',
  params: AlertIdParams,
  query: PageQuerySchema,
  response: HistoryPageSchema,
});

export const sendBudgetAlertTest = declare(
  AREA,
  'POST /alerts-v2/budgetAlerts/sendTest',
  'sendBudgetAlertTest',
  {
    entry: 'send-test',
    auth: 'member',
    summary: 'Send a sample notification through the delivery path (EMAIL, SLACK or TEAMS)',
    body: SendTestBody,
    response: SendTestResponse,
    // The sample is rendered (its burn chart drawn) by the alert-evaluate worker (budgets/alerts/send-test.ts).
    sendsTo: ['alert-evaluation'],
  },
);

export const backtestCostAlert = declare(AREA, 'POST /alerts-v2/costAlerts/backtest', 'backtestCostAlert', {
  auth: 'member',
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
