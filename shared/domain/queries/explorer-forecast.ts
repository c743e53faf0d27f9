import type { WhereRule } from '../../warehouse/warehouse-query';
import type { Query } from '../common/query-model';
import {
  FORECAST_BACKTEST_ORIGINS,
  FORECAST_HISTORY_DAYS,
  type ForecastSelection,
  forecastSeries,
  forecastTotal,
  selectionOf,
  seriesFingerprint,
} from '../forecast';
import type {
  Computed,
  ForecastAccuracyOut,
  ForecastBucket,
  ForecastMethod,
  QueryOut,
  SeriesOut,
  Window,
} from './model';
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
import { groupByOf, warehouseCall } from './rows';
import type { Run } from './run';

type CostQuery = Extract<Query, { type: 'cost' }>;

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

/** Shown series' daily histories and their forecasts, by the request that read them (see `histories`). */
const historyCache = new Map<string, HistoryEntry>();
interface HistoryEntry {
  /** Each shown group's days, by its value. */
  byValue: Map<string, number[]>;
  /** The forecasts made from them, per period, buckets, horizon and method. */
  answers: Map<string, Pick<SeriesOut, 'forecast' | 'forecastAccuracy'>[]>;
}
/** Fitted selections by series (see `bucketForecast`). */
const selectionCache = new Map<string, ForecastSelection>();
const HISTORY_ENTRIES = 32;
const SELECTION_ENTRIES = 5_000;

/** A bounded map: the oldest entry leaves when a new one passes the bound. */
function remember<V>(cache: Map<string, V>, key: string, value: V, bound: number): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > bound) cache.delete(cache.keys().next().value as string);
}

/** Empties the forecast's caches (the benchmark's cold runs). */
export function clearForecastCaches(): void {
  historyCache.clear();
  selectionCache.clear();
}

/**
 * Adds forecast buckets and their accuracy to each cost series: the forecasting model over the
 * series' own daily history (docs/queries.md, "Forecast"), `period.forecastMethod` forcing a method
 * (`weekday-mean` is the legacy same-weekday mean). A series forecast before on the same data
 * (same days, same values) reuses the backtest's selection and fit instead of running them again.
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
    const from = dataThrough - (forecastHistoryDays(days, method) - 1) * DAY_MS;
    const day: Window = {
      starts: bucketStarts(from, dataThrough + DAY_MS, 'Day', MAX_INTERNAL_BUCKETS),
      period: { start: from, end: dataThrough + DAY_MS, aggBy: 'Day' },
      offset: 0,
    };
    const signature = JSON.stringify([
      run.ctx.orgId,
      c.query,
      run.ctx.currency,
      run.ctx.conditions,
      run.scope,
    ]);
    const { daily, entry } = await histories(run, c.query, out, day, signature);
    // The same data asked again for the same buckets: the forecasts made then.
    const asked = JSON.stringify([w.period, days, method, dataThrough, out.series.map((s) => s.group)]);
    const before = entry?.answers.get(asked);
    if (before) {
      out.series.forEach((s, i) => {
        Object.assign(s, structuredClone(before[i]));
      });
      continue;
    }
    const dates = day.starts.map(ymd);
    out.series.forEach((s, i) => {
      const rows = dates.map((date, k) => ({ date, value: daily[i]?.[k] ?? 0 }));
      const memo = JSON.stringify([signature, s.group, s.other ?? false, from, dataThrough, days, method]);
      const f = bucketForecast(
        rows,
        { dataThrough, days, method, selection: selectionCache.get(memo) },
        aggBy,
        w.period,
        (t) => bucketKey(t, aggBy),
      );
      if (f.selection) remember(selectionCache, memo, f.selection, SELECTION_ENTRIES);
      s.forecast = f.points;
      s.forecastAccuracy = f.accuracy;
    });
    entry?.answers.set(
      asked,
      out.series.map((s) => structuredClone({ forecast: s.forecast, forecastAccuracy: s.forecastAccuracy })),
    );
  }
}

/**
 * The daily history of each shown series of a cost query (in `out.series` order) over the `day`
 * window. The ungrouped daily total is read first (one cheap scan); for a query grouped by one
 * dimension the shown groups' days are then read with a filter on their values (no ranking over
 * the whole history) and `Other` is the total less them. Those per-group days are kept for the
 * same request on the same data: same total days (a fingerprint of them), same refresh of the
 * organisation's dimensions, same `dataThrough`. Queries grouped by several dimensions, by empty
 * values, or split by currency read every group ranked over the history, as before.
 */
async function histories(
  run: Run,
  q: CostQuery,
  out: QueryOut,
  day: Window,
  signature: string,
): Promise<{ daily: (number | null)[][]; entry?: HistoryEntry }> {
  const base = { ...q, rollingAggregation: undefined, shiftAmount: undefined, shiftUnit: undefined };
  const groupBy = groupByOf(q.groupBy);
  const dim = groupBy[0];
  const shown = out.series.filter((s) => !s.other).map((s) => (dim ? s.group[dim] : null));
  const total = await run.series({ ...base, groupBy: null }, day);
  const totalDays = total.groups[0]?.values ?? [];
  if (!groupBy.length && !total.currencies) return { daily: out.series.map(() => totalDays) };
  if (groupBy.length !== 1 || !dim || total.currencies || shown.some((v) => !v))
    return { daily: await rankedHistories(run, base, out, day) };
  const catalog = await warehouseCall('catalog', () => run.wh.catalog(run.ctx.orgId));
  const key = JSON.stringify([
    signature,
    shown,
    day.period.start,
    day.period.end,
    catalog?.refreshedAt ?? null,
    seriesFingerprint(totalDays.map((v) => v ?? 0)),
  ]);
  let entry = historyCache.get(key);
  if (!entry) {
    const rule: WhereRule = { field: dim, operator: 'in', value: shown as string[] };
    const where = q.whereClause?.rules.length
      ? { combinator: 'and' as const, rules: [q.whereClause, rule] }
      : { combinator: 'and' as const, rules: [rule] };
    const read = await run.series({ ...base, whereClause: where }, day);
    const found = new Map(
      read.groups.filter((g) => !g.other).map((g) => [String(g.key[dim]), g.values as number[]]),
    );
    // A shown group with figures in the period but none read here: the filter did not select it
    // as the grouping did (a value spelled differently); read as before rather than forecast 0.
    if (out.series.some((s) => !s.other && s.total && !found.has(String(s.group[dim]))))
      return { daily: await rankedHistories(run, base, out, day) };
    entry = { byValue: found, answers: new Map() };
    remember(historyCache, key, entry, HISTORY_ENTRIES);
  }
  const cached = entry.byValue;
  const days = day.starts.length;
  const daily = out.series.map((s) => {
    if (!s.other) return cached.get(String(s.group[dim])) ?? new Array<number>(days).fill(0);
    return Array.from({ length: days }, (_, i) => {
      let rest = totalDays[i] ?? 0;
      for (const v of cached.values()) rest -= v[i] ?? 0;
      return rest;
    });
  });
  return { daily, entry };
}

/** Every group's history ranked over the whole history window, matched to the shown series. */
async function rankedHistories(
  run: Run,
  base: CostQuery,
  out: QueryOut,
  day: Window,
): Promise<(number | null)[][]> {
  const history = await run.series(base, day);
  const ids = new Set(out.series.map((x) => JSON.stringify(x.group)));
  return out.series.map((s) => {
    const id = JSON.stringify(s.group);
    const groups = history.groups.filter((g) =>
      s.other ? g.other || !ids.has(JSON.stringify(g.key)) : JSON.stringify(g.key) === id && !g.other,
    );
    return day.starts.map((_, i) => groups.reduce((acc, g) => acc + (g.values[i] ?? 0), 0));
  });
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
  options: {
    dataThrough: number;
    days: number;
    method: ForecastMethod;
    selection?: ForecastSelection | undefined;
  },
  aggBy: AggBy,
  period: { start: number; end: number },
  key: (t: number) => string,
): { points: ForecastBucket[]; accuracy: ForecastAccuracyOut; selection?: ForecastSelection | undefined } {
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
    ...(options.selection ? { selection: options.selection } : {}),
  });
  const selection = selectionOf(f);
  const accuracy: ForecastAccuracyOut = {
    method: f.method,
    history: f.history,
    accuracy: f.accuracy,
    fallback: legacy ? null : (f.fallback ?? null),
  };
  if (aggBy === 'Hour') return { points: [], accuracy, selection };
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
  return { points, accuracy, selection };
}
