import { remember } from '../../bounded-map';
import type { AGGREGATORS, Query } from '../../model/query-model';
import { evaluateExpression } from '../common/expr/evaluate';
import type { GroupedSeries } from '../common/expr/grouped-series';
import {
  type DailyHistory,
  FORECAST_HISTORY_DAYS,
  type ForecastPoint,
  type ForecastSelection,
  forecastSeries,
  forecastTotal,
  selectionOf,
} from '../forecast';
import {
  type Answer,
  answerFor,
  answerHash,
  clearKeptHere,
  type ForecastAnswerStore,
  type KeptAnswer,
  keepAnswer,
  keepHere,
  keptAnswer,
  viewOf,
} from './forecast-answers';
import {
  clearHistoryCache,
  type HistoryTotals,
  histories,
  historyTotal,
  historyWindow,
  rankedHistories,
  versionedKey,
  withoutWindow,
  withShown,
} from './forecast-history';
import type {
  Computed,
  ForecastAccuracyOut,
  ForecastBucket,
  ForecastMethod,
  QueryOut,
  Window,
} from './model';
import { type AggBy, bucketFloor, bucketKey, DAY_MS, dayMs, type ResolvedPeriod, ymd } from './period';
import { lookbackDays, planQueries } from './plan';
import type { Run } from './run';

type Aggregator = (typeof AGGREGATORS)[number];

export { forecastHistoryDays, prefetchTotals } from './forecast-history';

/**
 * The explorer's forecast (`period.forecastDays`; docs/queries.md, "Forecast"): each cost series'
 * daily history read through the run, the forecasting model (`shared/domain/forecast`) over it,
 * and its days summed into the request's buckets with intervals on the bucket totals.
 */

/** Fitted selections by series (see `bucketForecast`). */
const selectionCache = new Map<string, ForecastSelection>();
/** A formula over more operands is not forecast (its interval evaluates 2^operands combinations). */
const MAX_FORECAST_OPERANDS = 6;
const SELECTION_ENTRIES = 5_000;

/** Empties the forecast's caches (the benchmark's cold runs). */
export function clearForecastCaches(): void {
  clearHistoryCache();
  clearKeptHere();
  selectionCache.clear();
}

/** What identifies a query's forecasts besides the data: the query and what the run adds to it. */
function signatureOf(run: Run, query: Query): string {
  return JSON.stringify([run.ctx.orgId, query, run.ctx.currency, run.ctx.conditions, run.scope]);
}

/** The request's buckets, horizon, method and last day: what the store's key adds to the history's. */
function askedOf(period: ResolvedPeriod, days: number, method: ForecastMethod, dataThrough: number): string {
  return JSON.stringify([period, days, method, dataThrough]);
}

/** A cost query's store identity where the data has a version, and what the store holds under it. */
interface EarlyAnswer {
  /** The history's identity without the shown groups (`versionedKey`). */
  versioned: string;
  /** The store's key it was read under, and what it holds. */
  hash: string;
  kept?: KeptAnswer | undefined;
}
export type EarlyAnswers = ReadonlyMap<Query, Promise<EarlyAnswer | undefined>>;

/**
 * Where the data has a version, each cost query's kept answer, asked of the store as soon as
 * `dataThrough` is known: beside the request's own statement rather than after it (the key does
 * not need the groups it ranks). `addForecast` uses it when it is of the groups the statement
 * shows. A failure is `addForecast`'s to meet (it reads again, or computes).
 */
export function prefetchAnswers(
  run: Run,
  queries: readonly Query[],
  period: ResolvedPeriod,
  dataThrough: number,
  days: number,
  store: ForecastAnswerStore | undefined,
): EarlyAnswers {
  const method = run.request.period.forecastMethod ?? 'auto';
  const early = new Map<Query, Promise<EarlyAnswer | undefined>>();
  if (days <= 0 || period.aggBy === 'Hour') return early;
  const day = historyWindow(dataThrough, days, method);
  const asked = askedOf(period, days, method, dataThrough);
  for (const q of queries) {
    if (q.type !== 'cost') continue;
    const read = versionedKey(run, q, day, signatureOf(run, q)).then(async (versioned) => {
      if (versioned === undefined) return undefined;
      const hash = answerHash(versioned, asked);
      return { versioned, hash, kept: await keptAnswer(store, run.ctx.orgId, hash) };
    });
    read.catch(() => undefined); // awaited by addForecast; not "unhandled" when it is never reached
    early.set(q, read);
  }
  return early;
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
  options: {
    store?: ForecastAnswerStore | undefined;
    totals?: HistoryTotals | undefined;
    early?: EarlyAnswers | undefined;
  } = {},
) {
  const { store, totals } = options;
  const aggBy = w.period.aggBy;
  if (aggBy === 'Hour' || days <= 0) return;
  const method = run.request.period.forecastMethod ?? 'auto';
  for (const out of queries) {
    const c = done.get(out.name);
    if (c?.query.type !== 'cost' && c?.query.type !== 'metric') continue;
    const query = c.query;
    const day = historyWindow(dataThrough, days, method);
    const from = day.period.start;
    const signature = signatureOf(run, query);
    const groups = out.series.map((s) => s.group);
    const asked = askedOf(w.period, days, method, dataThrough);
    // The data's identity: its version where the warehouse keeps one, else its daily total, read.
    const early = query.type === 'cost' ? await options.early?.get(query)?.catch(() => undefined) : undefined;
    const versioned =
      early?.versioned ??
      (query.type === 'cost' ? await versionedKey(run, query, day, signature) : undefined);
    let known =
      query.type === 'cost' && versioned === undefined
        ? await historyTotal(run, query, out, day, signature, totals?.get(query))
        : undefined;
    // Its history, kept in this process, is by the shown groups too; answers are by the store's
    // key, without them where the data has a version (what is kept names them).
    const key =
      versioned !== undefined && query.type === 'cost' ? withShown(versioned, query, out) : known?.key;
    const storeKey = versioned ?? known?.key;
    // The same data asked again for the same buckets: the forecasts made then, by this process or
    // (kept in the store) another one.
    const hash = storeKey ? answerHash(storeKey, asked) : undefined;
    const before = hash
      ? answerFor(early?.hash === hash ? early.kept : await keptAnswer(store, run.ctx.orgId, hash), groups)
      : undefined;
    if (before) {
      out.series.forEach((s, i) => {
        Object.assign(s, before[i]);
      });
      continue;
    }
    if (query.type === 'cost' && !known)
      known = await historyTotal(run, query, out, day, signature, totals?.get(query), key);
    const daily =
      query.type === 'cost' && known
        ? await histories(run, query, out, day, known)
        : await rankedHistories(run, withoutWindow(query), out, day);
    const aggregator = query.type === 'metric' ? query.aggregator : 'SUM';
    const firstDay = ymd(day.starts[0] ?? from);
    out.series.forEach((s, i) => {
      const rows = { from: firstDay, values: daily[i] ?? [] };
      const memo = JSON.stringify([signature, s.group, s.other ?? false, from, dataThrough, days, method]);
      const f = bucketForecast(
        rows,
        { dataThrough, days, method, aggregator, selection: selectionCache.get(memo) },
        aggBy,
        w.period,
        (t) => bucketKey(t, aggBy),
      );
      if (f.selection) remember(selectionCache, memo, f.selection, SELECTION_ENTRIES);
      s.forecast = f.points;
      s.forecastAccuracy = f.accuracy;
    });
    const answer: Answer = out.series.map((s) =>
      structuredClone({ forecast: s.forecast, forecastAccuracy: s.forecastAccuracy }),
    );
    if (hash) {
      const kept = { groups: structuredClone(groups), series: answer };
      keepHere(hash, kept);
      if (store) await keepAnswer(store, run.ctx.orgId, hash, kept, viewOf(run.request, run.ctx));
    }
  }
  addFormulaForecasts(run, queries, aggBy);
}

/**
 * Formula forecasts (docs/queries.md, "Forecast"): a formula whose operands all have a forecast
 * and that reads no history (no `timeShift`, `rolling*` nor `forecast(…)`, no rolling window or
 * shift of its own) is evaluated bucket by bucket over its operands' forecast `value`s (a unit
 * cost forecast is the cost forecast over the usage forecast). Its interval is approximate: the
 * lowest and highest the formula takes with each operand anywhere in its own interval (every
 * combination of the operands' bounds), wider than the true one when the operands' errors are
 * correlated or cancel. Formulas are taken in the plan's order, so one over another is forecast
 * too. No `forecastAccuracy`: its operands' series carry theirs.
 */
function addFormulaForecasts(run: Run, queries: QueryOut[], aggBy: AggBy): void {
  const byName = new Map(queries.map((q) => [q.name, q]));
  for (const { query, expr } of planQueries(run.request.queries).exprs) {
    const out = byName.get(query.name);
    if (!out || query.type !== 'formula' || query.rollingAggregation || query.shiftAmount) continue;
    if (lookbackDays(expr.lookback) !== 0 || expr.refs.length > MAX_FORECAST_OPERANDS) continue;
    const operands = expr.refs.map((ref) => byName.get(ref));
    if (!operands.length || operands.some((o) => !o?.series.length || o.series.some((s) => !s.forecast)))
      continue;
    const dates = (operands[0]?.series[0]?.forecast ?? []).map((b) => b.date);
    const evaluate = (pick: (b: ForecastBucket, ref: number) => number) => {
      const series: Record<string, GroupedSeries> = {};
      expr.refs.forEach((ref, r) => {
        series[ref] = {
          groups: (operands[r]?.series ?? []).map((s) => ({
            key: s.group,
            values: dates.map((_, i) => {
              const b = s.forecast?.[i];
              return b ? pick(b, r) : null;
            }),
          })),
        };
      });
      const result = evaluateExpression(expr, { dates, bucket: aggBy, series });
      return new Map(result.groups.map((g) => [JSON.stringify(g.key), g.values]));
    };
    const central = evaluate((b) => b.value);
    const bounds = (lower: 'lower80' | 'lower95', upper: 'upper80' | 'upper95') => {
      const lo = new Map<string, number[]>();
      const hi = new Map<string, number[]>();
      for (let mask = 0; mask < 2 ** expr.refs.length; mask++) {
        const at = evaluate((b, r) => (mask & (2 ** r) ? b[upper] : b[lower]));
        for (const [id, values] of at) {
          const l = lo.get(id) ?? dates.map(() => Number.POSITIVE_INFINITY);
          const h = hi.get(id) ?? dates.map(() => Number.NEGATIVE_INFINITY);
          values.forEach((v, i) => {
            if (v === null || !Number.isFinite(v)) return;
            l[i] = Math.min(l[i] ?? v, v);
            h[i] = Math.max(h[i] ?? v, v);
          });
          lo.set(id, l);
          hi.set(id, h);
        }
      }
      return { lo, hi };
    };
    const b80 = bounds('lower80', 'upper80');
    const b95 = bounds('lower95', 'upper95');
    for (const s of out.series) {
      const id = JSON.stringify(s.group);
      const values = central.get(id);
      if (!values) continue;
      const points: ForecastBucket[] = [];
      values.forEach((value, i) => {
        if (value === null || !Number.isFinite(value)) return;
        const bound = (m: Map<string, number[]>, fallback: number, pick: typeof Math.min) => {
          const v = m.get(id)?.[i];
          return v === undefined || !Number.isFinite(v) ? fallback : pick(v, value);
        };
        points.push({
          date: dates[i] as string,
          value,
          lower80: bound(b80.lo, value, Math.min),
          upper80: bound(b80.hi, value, Math.max),
          lower95: bound(b95.lo, value, Math.min),
          upper95: bound(b95.hi, value, Math.max),
        });
      });
      s.forecast = points;
    }
  }
}

/**
 * A MAX or MIN metric's bucket: the highest (lowest) of its forecast days, each bound the highest
 * (lowest) of the days' bounds (approximate: the days' errors are not independent).
 */
function extremeBucket(
  days: readonly ForecastPoint[],
  start: number,
  last: number,
  aggregator: 'MAX' | 'MIN',
  key: (t: number) => string,
): ForecastBucket {
  const pick = aggregator === 'MAX' ? Math.max : Math.min;
  const inBucket = days.filter((p) => {
    const t = dayMs(p.date);
    return t >= start && t <= last;
  });
  const of = (field: keyof Omit<ForecastPoint, 'date'>) => pick(...inBucket.map((p) => p[field]));
  return {
    date: key(start),
    value: of('value'),
    lower80: of('lower80'),
    upper80: of('upper80'),
    lower95: of('lower95'),
    upper95: of('upper95'),
  };
}

/** The last `days` days of a history (rows or columns). */
function lastDays(history: DailyHistory, days: number): DailyHistory {
  if (!('from' in history)) return history.slice(-days);
  const skip = Math.max(0, history.values.length - days);
  return { from: ymd(dayMs(history.from) + skip * DAY_MS), values: Array.from(history.values).slice(skip) };
}

/** A history from its first non-zero day (none: empty): earlier days are not the series' history. */
function fromFirstData(history: DailyHistory): DailyHistory {
  if (!('from' in history)) {
    const k = history.findIndex((r) => r.value !== 0);
    return k < 0 ? [] : history.slice(k);
  }
  const values = Array.from(history.values);
  const k = values.findIndex((v) => v !== 0 && v !== null);
  return k < 0 ? [] : { from: ymd(dayMs(history.from) + k * DAY_MS), values: values.slice(k) };
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
  history: DailyHistory,
  options: {
    dataThrough: number;
    days: number;
    method: ForecastMethod;
    /** How the query reduces days into a bucket (metric queries): SUM (default) adds them. */
    aggregator?: Aggregator;
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
  const rows = legacy ? lastDays(history, FORECAST_HISTORY_DAYS) : fromFirstData(history);
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
  const aggregator = options.aggregator ?? 'SUM';
  const points = [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, last]): ForecastBucket => {
      if (aggregator === 'MAX' || aggregator === 'MIN')
        return extremeBucket(f.points, b, last, aggregator, key);
      const t = forecastTotal(f, rows, ymd(Math.max(b, period.start)), ymd(last));
      // AVG: the mean of the bucket's forecast days, and of all its days for the whole bucket.
      const per = aggregator === 'AVG' ? 1 / t.forecastDays : 1;
      const bounds = {
        lower80: (t.lower80 - t.actual) * per,
        upper80: (t.upper80 - t.actual) * per,
        lower95: (t.lower95 - t.actual) * per,
        upper95: (t.upper95 - t.actual) * per,
      };
      const out: ForecastBucket = { date: key(b), value: t.forecast * per, ...bounds };
      if (t.actualDays > 0) {
        const all = aggregator === 'AVG' ? 1 / (t.actualDays + t.forecastDays) : 1;
        Object.assign(out, {
          actual: aggregator === 'AVG' ? t.actual / t.actualDays : t.actual,
          bucketTotal: {
            value: t.value * all,
            lower80: t.lower80 * all,
            upper80: t.upper80 * all,
            lower95: t.lower95 * all,
            upper95: t.upper95 * all,
          },
        });
      }
      return out;
    });
  return { points, accuracy, selection };
}
