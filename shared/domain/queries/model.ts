import type { ConversionOut } from '../../model/conversion';
import type { Query } from '../../model/query-model';
import type { ForecastAccuracy, MethodName } from '../forecast';
import type { AggBy, ResolvedPeriod } from './period';
import type { Grouped } from './series';

/** `period.forecastMethod`: the model's backtest choice (`auto`) or one named method. */
export type ForecastMethod = 'auto' | MethodName;

/** The 80 % and 95 % prediction interval of a forecast figure. */
export interface ForecastBounds {
  lower80: number;
  upper80: number;
  lower95: number;
  upper95: number;
}

/** One forecast bucket: the sum of its forecast days, and its interval (docs/queries.md). */
export interface ForecastBucket extends ForecastBounds {
  date: string;
  value: number;
  /** The bucket's actual days (after the period's start, through `dataThrough`), when it has some. */
  actual?: number;
  /** actual + value, the interval on the whole bucket (a month partly actual, partly forecast). */
  bucketTotal?: ForecastBounds & { value: number };
}

/** How far to trust a series' forecast: the method, the history it read, and its backtest. */
export interface ForecastAccuracyOut {
  method: MethodName;
  history: { from: string; to: string; days: number };
  /** The rolling-origin backtest's figures (docs/forecasting.md); null without a backtest. */
  accuracy: ForecastAccuracy | null;
  /** Why the model fell back (a history under eight weeks); null when it ran as designed. */
  fallback: { reason: 'short-history'; detail: string } | null;
}

/** The answer of `POST /queries/explorer` and of a widget's data (docs/queries.md). */
export interface Point {
  /** The bucket's start: `YYYY-MM-DD`, or an ISO date-time for `Hour`. */
  date: string;
  value: number | null;
  /** The bucket ends after `dataThrough`: its figures may still change. */
  partial?: true;
}

export interface SeriesOut {
  /** One entry per group-by dimension; null where the rows have no value. `{}` without groupBy. */
  group: Record<string, string | null>;
  points: Point[];
  /** The series reduced by the query's reducer (see docs/queries.md). */
  total: number | null;
  /** The groups past the top N, summed; every group value reads `Other`. */
  other?: true;
  /** Forecast buckets after `dataThrough` (never mixed into `points` or `total`). */
  forecast?: ForecastBucket[];
  /** With `forecast`: the method, history and backtest accuracy of this series' forecast. */
  forecastAccuracy?: ForecastAccuracyOut;
}

export interface QueryOut {
  name: string;
  type: 'cost' | 'metric' | 'formula' | 'condition' | 'budget';
  alias: string | null;
  unit: string | null;
  currency: string | null;
  /**
   * A cost query of a mixed-currency organisation asked without a currency: the billing
   * currencies its series are split by (each series' group carries `BillingCurrency`; `total` is
   * null, since amounts in different currencies are not summed).
   */
  currencies?: string[];
  /** The conversion applied to this query's amounts (docs/currency.md). */
  conversion?: ConversionOut;
  series: SeriesOut[];
  /** The series reduced; null for a query split by currency. */
  total: number | null;
}

export interface PeriodOut {
  startDate: string;
  /** The last day of the period (included). */
  endDate: string;
  aggBy: AggBy;
}

export interface ExplorerResult {
  period: PeriodOut;
  queries: QueryOut[];
  comparison?: { period: PeriodOut; queries: QueryOut[] };
  /** The last day whose billing data is complete, or null without recent data. */
  dataThrough: string | null;
  /**
   * The currency of the cost figures: the one asked for (converted), else the organisation's
   * billing currency, or null for a mixed-currency organisation (figures split by currency).
   */
  currency: string | null;
  /** The conversion to `currency`, when some amounts were converted; else null. */
  conversion: ConversionOut | null;
}

/** Default number of groups a grouped query answers, and the most a request may ask for. */
export const DEFAULT_TOP_N = 100;
export const MAX_TOP_N = 1_000;
/** The group values of the summed rest. */
export const OTHER = 'Other';

/** A window of buckets an explorer run computes over. */
export interface Window {
  /** Buckets the expressions see (the period's, preceded by history). */
  starts: number[];
  period: ResolvedPeriod;
  /** Index in `starts` of the period's first bucket. */
  offset: number;
}

export interface Computed {
  query: Query;
  groups: Grouped[];
  unit: string | null;
  currency: string | null;
  /** Billing currencies of a cost query answered per currency (no total across them). */
  currencies?: string[];
  conversion?: ConversionOut;
  /** Totals the query computes itself (per group in `groups` order, and overall) instead of reducing its series. */
  totals?: { series: (number | null)[]; query: number | null };
}
