import * as v from 'valibot';

/** Enumerations shared by dashboards, reports and alerts, exactly as the spec lists them. */
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

export const DatePresetSchema = v.picklist(DATE_PRESETS);
export const VisibilitySchema = v.picklist(VISIBILITY_TYPES);

/** `groupBy`: a string, an array of non-empty strings, or null. */
export const GroupBySchema = v.nullable(
  v.union([
    v.pipe(v.string(), v.maxLength(200)),
    v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  ]),
);

/** Identifiers in paths: bounded, printable, no separators that could confuse key building. */
export const IdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(128), v.regex(/^[A-Za-z0-9_.:-]+$/));

const LIMIT_MESSAGE = 'must be a whole number from 1 to 100';

export const PageQuerySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, LIMIT_MESSAGE),
      v.transform(Number),
      v.minValue(1, LIMIT_MESSAGE),
      v.maxValue(100, LIMIT_MESSAGE),
    ),
    '25',
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(2048))),
});
