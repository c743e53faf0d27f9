import type { Bucket } from './dates';
import type { ForecastBound } from './parse';

// The series an expression reads and answers, and their form inside the evaluator: a Float64Array
// per group with NaN standing for null.

export type GroupKey = Record<string, string | null>;

export interface GroupedSeries {
  groups: { key: GroupKey; values: (number | null)[] }[];
}

export interface EvaluationInput {
  /** Bucket starts, ascending: `YYYY-MM-DD`, or an ISO date-time for Hour. */
  dates: string[];
  bucket: Bucket;
  /** The series of every referenced query, values aligned to `dates`. */
  series: Record<string, GroupedSeries>;
  /**
   * The forecasting model behind `forecast(…)` (`loadPeriodForecaster()`, ./forecaster.ts), loaded
   * only by callers whose expression calls it (`Expression.forecasts`), so an answer without a
   * forecast never loads the model.
   */
  forecaster?: PeriodForecaster;
}

/** One group's `forecast(x, unit)` over its daily values (./period-forecast.ts). */
export type PeriodForecaster = (
  dates: readonly string[],
  values: Float64Array,
  unit: 'WEEK' | 'MONTH',
  bound?: ForecastBound,
) => Float64Array;

export interface Group {
  id: string;
  key: GroupKey;
  values: Float64Array;
}

export interface Series {
  kind: 'series';
  groups: Group[];
  /** Sorted dimension names (JSON) of the groups; '' for the ungrouped `{}`; null with no groups. */
  dims: string | null;
  index: Map<string, Group>;
}

export type Value = { kind: 'scalar'; v: number } | Series;

/** The canonical id of a group key: JSON of its entries sorted by dimension name. */
export function groupId(key: GroupKey): string {
  const names = Object.keys(key).sort();
  return JSON.stringify(names.map((n) => [n, key[n] ?? null]));
}

function dimsOf(groups: Group[]): string | null {
  const first = groups[0];
  if (!first) return null;
  return Object.keys(first.key).length ? JSON.stringify(Object.keys(first.key).sort()) : '';
}

export function makeSeries(groups: Group[]): Series {
  return { kind: 'series', groups, dims: dimsOf(groups), index: new Map(groups.map((g) => [g.id, g])) };
}

export const isUngrouped = (s: Series) => s.dims === '';

/** A group's values as answered: null for null, x/0 and overflow. */
export function toOutput(values: Float64Array): (number | null)[] {
  const out = new Array<number | null>(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    // Non-finite (null, x/0, overflow) is null; -0 is 0.
    out[i] = Number.isFinite(x) ? (x === 0 ? 0 : x) : null;
  }
  return out;
}
