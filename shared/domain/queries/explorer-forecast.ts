import { FORECAST_BACKTEST_ORIGINS, FORECAST_HISTORY_DAYS, forecastSeries, forecastTotal } from '../forecast';
import type { ForecastAccuracyOut, ForecastBucket, ForecastMethod, QueryOut } from './model';
import {
  type AggBy,
  bucketFloor,
  bucketKey,
  bucketStarts,
  DAY_MS,
  dayMs,
  MAX_INTERNAL_BUCKETS,
  ymd,
} from './period';
import type { Computed, Run, Window } from './run';

/**
 * The explorer's forecast (`period.forecastDays`; docs/queries.md, "Forecast"): each cost series'
 * daily history read through the run, the forecasting model (`shared/domain/forecast`) over it,
 * and its days summed into the request's buckets with intervals on the bucket totals.
 */

/**
 * Days of history the explorer's forecast reads: enough for the model's backtest at the requested
 * horizon (a four-week fit window, 84 daily origins and the horizon), and at least a year, so the
 * month-start/end charges are seen a dozen times. At most two years (a 1,095-day horizon
 * backtests at a shorter one: accuracy.horizonDays says so).
 */
export function forecastHistoryDays(days: number, method: ForecastMethod = 'auto'): number {
  if (method === 'weekday-mean') return FORECAST_HISTORY_DAYS; // the baseline reads its four weeks
  return Math.min(730, Math.max(365, 28 + FORECAST_BACKTEST_ORIGINS + days));
}

/**
 * Adds forecast buckets and their accuracy to each cost series: the forecasting model over the
 * series' own daily history (docs/queries.md, "Forecast"), `period.forecastMethod` forcing a method
 * (`weekday-mean` is the legacy same-weekday mean).
 */
export async function addForecast(
  run: Run,
  queries: QueryOut[],
  done: Map<string, Computed>,
  w: Window,
  dataThrough: number,
  days: number,
) {
  const aggBy = w.period.aggBy;
  if (aggBy === 'Hour' || days <= 0) return;
  const method = run.request.period.forecastMethod ?? 'auto';
  for (const out of queries) {
    const c = done.get(out.name);
    if (c?.query.type !== 'cost') continue;
    const q = c.query;
    const from = dataThrough - (forecastHistoryDays(days, method) - 1) * DAY_MS;
    const day: Window = {
      starts: bucketStarts(from, dataThrough + DAY_MS, 'Day', MAX_INTERNAL_BUCKETS),
      period: { start: from, end: dataThrough + DAY_MS, aggBy: 'Day' },
      offset: 0,
    };
    const history = await run.series(
      { ...q, rollingAggregation: undefined, shiftAmount: undefined, shiftUnit: undefined },
      day,
    );
    for (const s of out.series) {
      const id = JSON.stringify(s.group);
      const groups = history.groups.filter((g) =>
        s.other
          ? g.other || !out.series.some((x) => JSON.stringify(x.group) === JSON.stringify(g.key))
          : JSON.stringify(g.key) === id && !g.other,
      );
      const daily = day.starts.map((t, i) => ({
        date: ymd(t),
        value: groups.reduce((acc, g) => acc + (g.values[i] ?? 0), 0),
      }));
      const f = bucketForecast(daily, { dataThrough, days, method }, aggBy, w.period, (t) =>
        bucketKey(t, aggBy),
      );
      s.forecast = f.points;
      s.forecastAccuracy = f.accuracy;
    }
  }
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
