import * as v from 'valibot';
import { DASHBOARD_CURRENCIES, IdSchema } from '../common/enums';
import { AGG_BY, ExplorerRequestSchema } from '../common/query-model';
import { WhereClauseSchema } from '../common/where-clause';
import { DASHBOARD_LIMITS } from '../dashboards/schemas';

/**
 * `POST /queries/explorer`: a widget's `advancedExplorer` request plus a dashboard's context.
 * `conditions` is a where clause ANDed into cost queries that extend the dashboard's conditions;
 * `currency` is accepted and not applied yet (the answer's `currency` says which currency the
 * figures are in; conversion comes with issue 17).
 */
export const ExplorerBody = v.strictObject({
  request: ExplorerRequestSchema,
  conditions: v.optional(v.nullable(WhereClauseSchema)),
  currency: v.optional(v.nullable(v.picklist(DASHBOARD_CURRENCIES))),
});
export type ExplorerBodyInput = v.InferOutput<typeof ExplorerBody>;

export const WidgetDataParams = v.object({
  id: IdSchema,
  key: v.pipe(v.string(), v.minLength(1), v.maxLength(DASHBOARD_LIMITS.widgetKeyMaxLength)),
});

const PeriodOut = v.object({ startDate: v.string(), endDate: v.string(), aggBy: v.picklist(AGG_BY) });
const SeriesOut = v.object({
  group: v.record(v.string(), v.nullable(v.string())),
  points: v.array(
    v.object({ date: v.string(), value: v.nullable(v.number()), partial: v.optional(v.literal(true)) }),
  ),
  total: v.nullable(v.number()),
  other: v.optional(v.literal(true)),
  forecast: v.optional(v.array(v.object({ date: v.string(), value: v.number() }))),
});
const QueryOut = v.object({
  name: v.string(),
  type: v.picklist(['cost', 'metric', 'formula', 'condition']),
  alias: v.nullable(v.string()),
  unit: v.nullable(v.string()),
  currency: v.nullable(v.string()),
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
});
