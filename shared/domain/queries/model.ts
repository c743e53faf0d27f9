import type { AggBy } from './period';

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
  forecast?: { date: string; value: number }[];
}

export interface QueryOut {
  name: string;
  type: 'cost' | 'metric' | 'formula' | 'condition';
  alias: string | null;
  unit: string | null;
  currency: string | null;
  series: SeriesOut[];
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
  /** The currency of the cost figures (the billing currency; conversion comes with issue 17). */
  currency: string | null;
}

/** Default number of groups a grouped query answers, and the most a request may ask for. */
export const DEFAULT_TOP_N = 100;
export const MAX_TOP_N = 1_000;
/** The group values of the summed rest. */
export const OTHER = 'Other';
