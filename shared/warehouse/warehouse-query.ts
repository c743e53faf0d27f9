import type { WhereClause, WhereRule } from '../model/where-clause';
import type { MetricId } from './focus-columns';

/**
 * The warehouse query model, shared by the DuckDB and Athena adapters: a cost metric id, a
 * group-by list, a `whereClause` (`{combinator, rules}` with `{field, operator, value[]}` rules
 * and nested groups: the validated request's type, shared/model/where-clause.ts), a granularity
 * and a half-open date range `[start, end)`.
 */
export type Granularity = 'Day' | 'Week' | 'Month';
export const GRANULARITIES: readonly Granularity[] = ['Day', 'Week', 'Month'];
/** What a series query may bucket by: the granularities, plus `Hour` and `Period` (one bucket). */
export type SeriesGranularity = Granularity | 'Hour' | 'Period';
export const SERIES_GRANULARITIES: readonly SeriesGranularity[] = ['Hour', 'Day', 'Week', 'Month', 'Period'];

export function isWhereGroup(rule: WhereRule | WhereClause): rule is WhereClause {
  return typeof rule === 'object' && rule !== null && Array.isArray((rule as WhereClause).rules);
}

export interface CostSeriesQuery {
  orgId: string;
  metricId: MetricId;
  /** Dimension names: built-in (`provider`, `ServiceName`…), `tag:<key>`, published labels, virtual dimensions, enrichment columns. */
  groupBy?: string | string[] | null;
  whereClause?: WhereClause | null;
  /** `Period` answers one row per group, dated `start`; `Hour` buckets are `YYYY-MM-DDTHH:00:00Z`. */
  granularity: SeriesGranularity;
  /** Inclusive start and exclusive end: `YYYY-MM-DD` or an ISO date-time (UTC). */
  start: string;
  end: string;
  /**
   * Keep the `topN` groups with the largest total over the range (ties broken by the group
   * values); every other group is summed into one row per period with `other: true` and `''`
   * group values. Only with a groupBy.
   */
  topN?: number;
  /**
   * Convert each row's amount to `target` at its charge day's factor (docs/currency.md). A row in
   * another currency whose (currency, day) has no factor fails the statement with a
   * `MissingRateError` naming the currency and the day; rows already in `target` stay as they are.
   */
  conversion?: CurrencyConversion;
}

/** Per-day factors from billing currencies to a target currency, joined to the rows in the statement. */
export interface CurrencyConversion {
  target: string;
  /** The first day the factors may cover (`YYYY-MM-DD`, on or before the range's start). */
  from: string;
  /** One entry per (source currency, calendar day `YYYY-MM-DD`) with a usable rate. */
  factors: readonly { currency: string; day: string; factor: number }[];
  /**
   * Set by an adapter that knows (from a read it keeps until the next write) that every row of
   * the organisation is billed in this one currency: the statement then reads no BillingCurrency.
   * Never set from a guess: a wrong value would convert rows at another currency's rate.
   */
  rowCurrency?: string;
}

export interface UsageSeriesQuery extends Omit<CostSeriesQuery, 'metricId'> {
  /** A `consumed_unit` from the usage-metrics list; the series sums ConsumedQuantity in that unit. */
  consumedUnit: string;
}

export interface SeriesRow {
  /** First day of the period, `YYYY-MM-DD` (weeks start on Monday). */
  period: string;
  /** One entry per group-by dimension; a row without a value for it has `''`. */
  group: Record<string, string>;
  value: number;
  /** The sum of the groups past `topN`. */
  other?: true;
}

/** What the engine needs to know about an organisation's billing rows as a whole. */
export interface BillingInfo {
  /** The day (`YYYY-MM-DD`) of the latest `ChargePeriodStart` in recent billing months, or null. */
  lastChargeDay: string | null;
  /** The distinct `BillingCurrency` values of those months, sorted. */
  currencies: string[];
}

/**
 * Operators of a where rule. `value` is always a list: the positive operators match any value in
 * it, the negative ones match rows that equal none of them (including rows without a value).
 */
export const OPERATORS = [
  { name: 'in', label: 'is any of' },
  { name: 'notIn', label: 'is none of' },
  { name: '=', label: 'is' },
  { name: '!=', label: 'is not' },
  { name: 'contains', label: 'contains' },
  { name: 'doesNotContain', label: 'does not contain' },
  { name: 'beginsWith', label: 'begins with' },
  { name: 'doesNotBeginWith', label: 'does not begin with' },
  { name: 'endsWith', label: 'ends with' },
  { name: 'doesNotEndWith', label: 'does not end with' },
  { name: 'null', label: 'is empty' },
  { name: 'notNull', label: 'is not empty' },
] as const;
export type OperatorName = (typeof OPERATORS)[number]['name'];

export function isOperator(name: string): name is OperatorName {
  return OPERATORS.some((o) => o.name === name);
}

export const QUERY_BOUNDS = {
  groupBy: 5,
  whereDepth: 6,
  rulesPerGroup: 100,
  valuesPerRule: 1000,
  valueLength: 1000,
  /** Rows a series query may return before it is refused as too wide. */
  maxRows: 200_000,
} as const;

/** Stable column id of a computed dimension (label, virtual dimension, enrichment column). */
export type ComputedKind = 'label' | 'vdim' | 'enrichment';

export interface ComputedDimension {
  name: string;
  kind: ComputedKind;
  /** Physical column (`d_<hash>`) in the organisation's enriched table or view. */
  column: string;
}

/**
 * What the last refresh built for an organisation: the computed dimensions its enriched view
 * holds. Queries resolve names against it, so they never reference a column that does not exist.
 */
export interface Catalog {
  orgId: string;
  refreshedAt: string;
  mode: 'full' | 'light';
  dimensions: ComputedDimension[];
  /** Problems that did not stop the refresh (an enrichment whose condition could not be applied). */
  warnings: string[];
}

export function groupByList(groupBy: string | string[] | null | undefined): string[] {
  if (groupBy === null || groupBy === undefined || groupBy === '') return [];
  return (Array.isArray(groupBy) ? groupBy : [groupBy]).filter((g) => g !== '');
}
