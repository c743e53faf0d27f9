import type { GroupKey } from '../common/expr/grouped-series';
import { type AggBy, bucketFloor, DAY_MS, nextBucket } from './period';

/**
 * Series arithmetic of the engine, over values aligned to a list of bucket starts: reducers,
 * `rollingAggregation` and partial buckets. Nothing here reads rows: the warehouse has already
 * aggregated them per bucket and group.
 */
export type Aggregator = 'SUM' | 'AVG' | 'MAX' | 'MIN';

export interface Grouped {
  key: GroupKey;
  values: (number | null)[];
  other?: true;
}

/** Reduces values with an aggregator, skipping nulls; null when every value is null. */
export function reduce(values: readonly (number | null)[], aggregator: Aggregator): number | null {
  let n = 0;
  let acc = 0;
  for (const v of values) {
    if (v === null || Number.isNaN(v)) continue;
    if (n === 0) acc = v;
    else if (aggregator === 'SUM' || aggregator === 'AVG') acc += v;
    else if (aggregator === 'MAX') acc = Math.max(acc, v);
    else acc = Math.min(acc, v);
    n++;
  }
  if (n === 0) return null;
  return aggregator === 'AVG' ? acc / n : acc;
}

export interface RollingSpec {
  aggregator: Aggregator;
  window: { preset?: 'MONTH' | 'WEEK' | undefined; relativeDays?: number | undefined };
}

/** The window of `relativeDays` in buckets of `aggBy` (at least one). */
export function windowBuckets(relativeDays: number, aggBy: AggBy): number {
  switch (aggBy) {
    case 'Hour':
      return relativeDays * 24;
    case 'Day':
      return relativeDays;
    case 'Week':
      return Math.max(1, Math.ceil(relativeDays / 7));
    case 'Month':
      return Math.max(1, Math.ceil(relativeDays / 30));
    case 'Period':
      return 1;
  }
}

/**
 * Where the history of a rolling window starting at bucket `first` begins: `n - 1` buckets back
 * for `relativeDays`, the start of the calendar week or month for a preset.
 */
export function rollingHistoryStart(first: number, spec: RollingSpec, aggBy: AggBy): number {
  if (aggBy === 'Period') return first;
  if (spec.window.preset) {
    return bucketFloor(bucketFloor(first, spec.window.preset === 'WEEK' ? 'Week' : 'Month'), aggBy);
  }
  const n = windowBuckets(spec.window.relativeDays ?? 1, aggBy);
  let t = bucketFloor(first, aggBy);
  for (let i = 1; i < n; i++) {
    // Step back one bucket: the bucket holding the instant just before t.
    t = bucketFloor(t - 1, aggBy);
  }
  return t;
}

/**
 * A rolling aggregation over buckets `starts`: with `relativeDays` the window is the last n
 * buckets (see windowBuckets) including the current one; with a preset it runs from the start of
 * the bucket's calendar week (ISO) or month (a to-date figure: month-to-date cost with SUM).
 * Nulls are skipped; a window of nulls is null.
 */
export function rolling(
  values: readonly (number | null)[],
  starts: readonly number[],
  spec: RollingSpec,
  aggBy: AggBy,
): (number | null)[] {
  if (aggBy === 'Period') return [...values];
  const out: (number | null)[] = [];
  if (spec.window.preset) {
    const unit = spec.window.preset === 'WEEK' ? 'Week' : 'Month';
    let from = 0;
    for (let i = 0; i < values.length; i++) {
      if (i > 0 && bucketFloor(starts[i]!, unit) !== bucketFloor(starts[i - 1]!, unit)) from = i;
      out.push(reduce(values.slice(from, i + 1), spec.aggregator));
    }
    return out;
  }
  const n = windowBuckets(spec.window.relativeDays ?? 1, aggBy);
  for (let i = 0; i < values.length; i++) {
    out.push(reduce(values.slice(Math.max(0, i - n + 1), i + 1), spec.aggregator));
  }
  return out;
}

/** True when the bucket starting at `t` ends after `dataThrough` (a day, epoch ms). */
export function isPartial(t: number, aggBy: AggBy, periodEnd: number, dataThrough: number | null): boolean {
  if (dataThrough === null) return false;
  const end =
    aggBy === 'Hour' ? bucketFloor(t, 'Day') + DAY_MS : Math.min(nextBucket(t, aggBy, periodEnd), periodEnd);
  return end > dataThrough + DAY_MS;
}
