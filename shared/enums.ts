/**
 * Enumerations shared by dashboards, reports and alerts, exactly as the spec lists them. Plain
 * data at the bottom of the house: the query domain resolves the date presets, the warehouse computes the
 * metrics; the domain builds its schemas from them (./domain/common/enums.ts).
 */
export const DATE_PRESETS = [
  'TRAILING_90_DAYS',
  'TRAILING_30_DAYS',
  'TRAILING_45_DAYS',
  'TRAILING_7_DAYS',
  'TRAILING_3_DAYS',
  'TRAILING_1_DAYS',
  'TRAILING_14_WEEKS',
  'MTD',
  'QTD',
  'YTD',
  'CURRENT_MONTH',
  'CURRENT_QUARTER',
  'CURRENT_YEAR',
  'LAST_WEEK',
  'LAST_MONTH',
  'LAST_6_MONTHS',
  'LAST_12_MONTHS',
  'LAST_4_YEARS',
  'LAST_3_MONTHS',
  'LAST_INVOICE_MONTH',
] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

export const DASHBOARD_CURRENCIES = ['USD', 'EUR', 'GBP', 'CNY', 'KRW'] as const;
export const ALERT_CURRENCIES = ['USD', 'EUR', 'GBP', 'CNY'] as const;

export const COST_METRIC_IDS = [
  'cost',
  'effective_cost',
  'list_cost',
  'contracted_cost',
  'unblended_cost',
  'net_unblended_cost',
  'amortized_cost',
  'net_amortized_cost',
] as const;
export type CostMetricId = (typeof COST_METRIC_IDS)[number];

export const VISIBILITY_TYPES = ['PRIVATE', 'PUBLIC', 'TEMPLATE'] as const;
export type VisibilityType = (typeof VISIBILITY_TYPES)[number];

/** A report's delivery schedule (null: on demand) and status (docs/report-delivery.md). */
export const SCHEDULED_PERIODS = ['DAILY', 'WEEKDAYS', 'WEEKLY', 'MONTHLY'] as const;
export const REPORT_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
