import * as v from 'valibot';
import { DASHBOARD_LIMITS } from '../../model/dashboard-schemas';
import { DASHBOARD_CURRENCIES, IdSchema } from '../../model/enum-schemas';
import { AGG_BY, ExplorerCallRequestSchema, FORECAST_METHODS, QUERY_TYPES } from '../../model/query-model';
import { WhereClauseSchema } from '../../model/where-clause';
import type { MethodName } from '../forecast';

/**
 * `POST /queries/explorer`: a widget's `advancedExplorer` request plus a dashboard's context. The
 * request may give plain dates and leave out the display-only `colorIndex`/`chartType`.
 * `conditions` is a where clause ANDed into cost queries that extend the dashboard's conditions;
 * `currency` converts every cost figure to it at the rate of each row's charge day (a cost query's
 * own `currency` wins; docs/currency.md); without it figures stay in the billing currency.
 */
export const ExplorerBody = v.strictObject({
  request: ExplorerCallRequestSchema,
  conditions: v.optional(v.nullable(WhereClauseSchema)),
  currency: v.optional(v.nullable(v.picklist(DASHBOARD_CURRENCIES))),
});
export type ExplorerBodyInput = v.InferOutput<typeof ExplorerBody>;

export const WidgetDataParams = v.object({
  id: IdSchema,
  key: v.pipe(v.string(), v.minLength(1), v.maxLength(DASHBOARD_LIMITS.widgetKeyMaxLength)),
});

const Bounds = {
  lower80: v.number(),
  upper80: v.number(),
  lower95: v.number(),
  upper95: v.number(),
};
/** A forecast bucket: its forecast days' sum and interval; `bucketTotal` with its actual days. */
const ForecastBucketOut = v.object({
  date: v.string(),
  value: v.number(),
  ...Bounds,
  actual: v.optional(v.number()),
  bucketTotal: v.optional(v.object({ value: v.number(), ...Bounds })),
});
/** The method, history and backtest figures of a series' forecast (docs/forecasting.md). */
const ForecastAccuracyOut = v.object({
  method: v.picklist(FORECAST_METHODS.filter((m) => m !== 'auto') as MethodName[]),
  history: v.object({ from: v.string(), to: v.string(), days: v.number() }),
  accuracy: v.nullable(
    v.object({
      horizonDays: v.number(),
      origins: v.number(),
      from: v.string(),
      to: v.string(),
      mape: v.nullable(v.number()),
      wape: v.number(),
      totalError: v.nullable(v.object({ median: v.number(), p90: v.number() })),
      mase: v.nullable(v.number()),
      relativeMae: v.nullable(v.number()),
      coverage80: v.nullable(v.number()),
      coverage95: v.nullable(v.number()),
    }),
  ),
  fallback: v.nullable(v.object({ reason: v.literal('short-history'), detail: v.string() })),
});
const PeriodOut = v.object({ startDate: v.string(), endDate: v.string(), aggBy: v.picklist(AGG_BY) });
const SeriesOut = v.object({
  group: v.record(v.string(), v.nullable(v.string())),
  points: v.array(
    v.object({ date: v.string(), value: v.nullable(v.number()), partial: v.optional(v.literal(true)) }),
  ),
  total: v.nullable(v.number()),
  other: v.optional(v.literal(true)),
  forecast: v.optional(v.array(ForecastBucketOut)),
  forecastAccuracy: v.optional(ForecastAccuracyOut),
});
/** What a converted answer states (docs/currency.md). */
export const ConversionOut = v.object({
  from: v.array(v.string()),
  to: v.string(),
  source: v.nullable(v.string()),
  rates: v.nullable(v.object({ from: v.string(), to: v.string() })),
});
const QueryOut = v.object({
  name: v.string(),
  type: v.picklist(QUERY_TYPES),
  alias: v.nullable(v.string()),
  unit: v.nullable(v.string()),
  currency: v.nullable(v.string()),
  currencies: v.optional(v.array(v.string())),
  conversion: v.optional(ConversionOut),
  series: v.array(SeriesOut),
  total: v.nullable(v.number()),
});

/** Response schema, for the OpenAPI document. */
export const ExplorerResponse = v.object({
  period: PeriodOut,
  queries: v.array(QueryOut),
  comparison: v.optional(v.object({ period: PeriodOut, queries: v.array(QueryOut) })),
  dataThrough: v.nullable(v.string()),
  currency: v.nullable(v.string()),
  conversion: v.nullable(ConversionOut),
});
