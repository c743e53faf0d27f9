import type { GroupKey } from '../common/expr/evaluate';
import { FORECAST_HISTORY_DAYS, forecastSeries, forecastTotal } from '../forecast';
import type { ForecastAccuracyOut, ForecastBucket, ForecastMethod } from './model';
import { type AggBy, bucketFloor, DAY_MS, dayMs, nextBucket, ymd } from './period';

/**
 * Series arithmetic of the engine, over values aligned to a list of bucket starts: reducers,
 * `rollingAggregation` and the forecast. Nothing here reads rows: the warehouse has already
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

/**
 * The explorer's forecast of one daily series (docs/queries.md, "Forecast"): the forecasting model
 * (`shared/domain/forecast`) over `history`, its daily points summed into the request's buckets by
 * `forecastTotal`, so each bucket's interval is on the bucket's total (its actual days after
 * `periodStart` included: a month partly actual, partly forecast). Each bucket's `value` and
 * bounds are the forecast days' part; a bucket that also holds actual days adds `actual` and
 * `bucketTotal` (actual + forecast, interval on the whole bucket).
 */
export function bucketForecast(
  history: readonly { date: string; value: number }[],
  options: { dataThrough: number; days: number; method: ForecastMethod },
  aggBy: AggBy,
  period: { start: number; end: number },
  key: (t: number) => string,
): { points: ForecastBucket[]; accuracy: ForecastAccuracyOut } {
  const legacy = options.method === 'weekday-mean';
  // The legacy baseline reads the four weeks it always read, missing days as 0 (the model's
  // under-eight-weeks rule: the same-weekday mean of the whole weeks, here exactly four). Else
  // leading days without data are not history (a group that started billing later).
  const firstData = history.findIndex((r) => r.value !== 0);
  const rows = legacy ? history.slice(-FORECAST_HISTORY_DAYS) : firstData < 0 ? [] : history.slice(firstData);
  const f = forecastSeries(rows, {
    horizonDays: options.days,
    dataThrough: ymd(options.dataThrough),
    ...(options.method === 'auto' || legacy ? {} : { method: options.method }),
  });
  const accuracy: ForecastAccuracyOut = {
    method: f.method,
    history: f.history,
    accuracy: f.accuracy,
    fallback: legacy ? null : (f.fallback ?? null),
  };
  if (aggBy === 'Hour') return { points: [], accuracy };
  const buckets = new Map<number, number>(); // bucket start → last forecast day in it
  for (const p of f.points) {
    const t = dayMs(p.date);
    buckets.set(bucketFloor(t, aggBy, period.start), t);
  }
  const points = [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, last]) => {
      const t = forecastTotal(f, rows, ymd(Math.max(b, period.start)), ymd(last));
      const bounds = {
        lower80: t.lower80 - t.actual,
        upper80: t.upper80 - t.actual,
        lower95: t.lower95 - t.actual,
        upper95: t.upper95 - t.actual,
      };
      const out: ForecastBucket = { date: key(b), value: t.forecast, ...bounds };
      if (t.actualDays > 0)
        Object.assign(out, {
          actual: t.actual,
          bucketTotal: {
            value: t.value,
            lower80: t.lower80,
            upper80: t.upper80,
            lower95: t.lower95,
            upper95: t.upper95,
          },
        });
      return out;
    });
  return { points, accuracy };
}

/** True when the bucket starting at `t` ends after `dataThrough` (a day, epoch ms). */
export function isPartial(t: number, aggBy: AggBy, periodEnd: number, dataThrough: number | null): boolean {
  if (dataThrough === null) return false;
  const end =
    aggBy === 'Hour' ? bucketFloor(t, 'Day') + DAY_MS : Math.min(nextBucket(t, aggBy, periodEnd), periodEnd);
  return end > dataThrough + DAY_MS;
}
