import { remember } from '../../bounded-map';
import type { Query } from '../../model/query-model';
import type { WhereRule } from '../../model/where-clause';
import { FORECAST_BACKTEST_ORIGINS, FORECAST_HISTORY_DAYS, seriesFingerprint } from '../forecast';
import type { Computed, ForecastMethod, QueryOut, Window } from './model';
import { bucketStarts, DAY_MS, MAX_INTERNAL_BUCKETS } from './period';
import type { SeriesQuery } from './plan';
import { groupByOf, warehouseCall } from './rows';
import type { Run } from './run';

/**
 * The history the explorer's forecast reads (docs/queries.md, "Forecast"): its window, the
 * identity of the data it is read from (the data version, else the total's days), and each shown
 * series' daily values — the ungrouped total, the shown groups by a filter, or every group ranked —
 * with what this process keeps of them.
 */

type CostQuery = Extract<Query, { type: 'cost' }>;
const HISTORY_ENTRIES = 32;

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

/** Shown groups' daily histories (a filtered read's), by the identity of the request that read them. */
const historyCache = new Map<string, Map<string, number[]>>();

/** Empties the histories kept in this process. */
export function clearHistoryCache(): void {
  historyCache.clear();
}

/** The days the forecast of a request reads as history: the `forecastHistoryDays` up to `dataThrough`. */
export function historyWindow(dataThrough: number, days: number, method: ForecastMethod): Window {
  const from = dataThrough - (forecastHistoryDays(days, method) - 1) * DAY_MS;
  return {
    starts: bucketStarts(from, dataThrough + DAY_MS, 'Day', MAX_INTERNAL_BUCKETS),
    period: { start: from, end: dataThrough + DAY_MS, aggBy: 'Day' },
    offset: 0,
  };
}

/**
 * Each cost query's ungrouped daily total over its forecast history, being read (`prefetchTotals`);
 * `undefined` where the data has a version (the total is then read only for a forecast not kept).
 */
export type HistoryTotals = ReadonlyMap<Query, Promise<Computed | undefined>>;

/**
 * Where the data has no version: starts reading each cost query's ungrouped daily total over the
 * forecast's history (the data's identity then, and the first thing `addForecast` reads) as soon
 * as `dataThrough` is known, so it runs beside the request's own buckets instead of after them.
 * The same statements as `historyTotal` would make, earlier; a failure is `addForecast`'s to report.
 */
export function prefetchTotals(
  run: Run,
  queries: readonly Query[],
  dataThrough: number,
  days: number,
): HistoryTotals {
  const method = run.request.period.forecastMethod ?? 'auto';
  const totals = new Map<Query, Promise<Computed | undefined>>();
  if (days <= 0) return totals;
  const day = historyWindow(dataThrough, days, method);
  const version = dataVersionOf(run);
  for (const q of queries) {
    if (q.type !== 'cost') continue;
    const read = version.then((v) =>
      v === undefined ? run.series({ ...withoutWindow(q), groupBy: null }, day) : undefined,
    );
    read.catch(() => undefined); // awaited by addForecast; not "unhandled" when it is never reached
    totals.set(q, read);
  }
  return totals;
}

/** A series query without its rolling window and shift: the daily history the model reads. */
export function withoutWindow<Q extends SeriesQuery>(q: Q): Q {
  return { ...q, rollingAggregation: undefined, shiftAmount: undefined, shiftUnit: undefined };
}

/** What is known of a cost query's history before its groups are read (see `historyTotal`). */
export interface KnownHistory {
  base: CostQuery;
  /** The ungrouped daily total over the history window. */
  totalDays: (number | null)[];
  /** How the groups' days are read: none needed, by a filter on the shown values, or ranked. */
  read: 'total' | 'filtered' | 'ranked';
  /** The dimension a filtered read filters on, and the shown groups' values. */
  dim?: string;
  shown?: string[];
  /**
   * The identity of the request's history on this data (request, shown groups, window, the
   * organisation's last refresh and a fingerprint of the total's days); none for a ranked read.
   */
  key?: string;
}

/** The values of a cost query's shown groups on its one dimension (null for an ungrouped query). */
function shownValues(q: CostQuery, out: QueryOut): (string | null | undefined)[] {
  const dim = groupByOf(q.groupBy)[0];
  return out.series.filter((s) => !s.other).map((s) => (dim ? s.group[dim] : null));
}

/** The org's data version, when the warehouse keeps one: read once a request. */
const versions = new WeakMap<Run, Promise<string | undefined>>();
function dataVersionOf(run: Run): Promise<string | undefined> {
  let version = versions.get(run);
  if (!version) {
    version = warehouseCall('dataVersion', () => run.wh.dataVersion(run.ctx.orgId));
    versions.set(run, version);
  }
  return version;
}

/** What a request's history is identified by besides its data: request, shown groups, window, last refresh. */
async function identityOf(
  run: Run,
  signature: string,
  shown: readonly (string | null | undefined)[] | null,
  day: Window,
): Promise<unknown[]> {
  const catalog = await warehouseCall('catalog', () => run.wh.catalog(run.ctx.orgId));
  return [signature, shown, day.period.start, day.period.end, catalog?.refreshedAt ?? null];
}

/**
 * The identity of a cost query's history where the warehouse keeps a version of the org's data
 * (DuckDB, Athena): the request, the window, the last refresh, the version and the history's
 * currency plan, so a forecast kept for it is found without reading the total. It does not name
 * the shown groups: the same request on the same data ranks the same ones, so it is known before
 * the request's own statement ends (the store is read beside it, and what it holds names its
 * groups: `answerFor`). What this process keeps adds the groups (`withShown`). Every cost query
 * has one, a query whose groups are read ranked too (several dimensions, an empty value, an
 * answer split by currency: its currencies are part of it). None without a version:
 * `historyTotal` then decides.
 */
export async function versionedKey(
  run: Run,
  q: CostQuery,
  day: Window,
  signature: string,
): Promise<string | undefined> {
  const version = await dataVersionOf(run);
  if (version === undefined) return undefined;
  // The history's currency plan, as reading its total would make it (and note its conversion in
  // the answer's `conversion` alike): a converted answer is identified by the day factors it is
  // converted at (new rates, new answer), a split one by its currencies.
  const money = await run.money.plan(
    q.currency ?? run.ctx.currency ?? null,
    day.period.start,
    day.period.end,
  );
  const rates =
    money.mode === 'convert'
      ? (money.conversion?.factors ?? [])
      : money.mode === 'split'
        ? money.currencies
        : [];
  return JSON.stringify([...(await identityOf(run, signature, null, day)), `version:${version}`, rates]);
}

/** A versioned identity with the query's shown groups: what this process keeps histories and answers by. */
export function withShown(versioned: string, q: CostQuery, out: QueryOut): string {
  return JSON.stringify([versioned, shownValues(q, out)]);
}

/**
 * The ungrouped daily total of a cost query over the `day` window (one cheap scan) and the
 * identity of its history: same request, same shown groups, same window, same refresh of the
 * organisation's data and dimensions, same total days. A query grouped by one dimension then
 * reads its shown groups' days with a filter on their values (no ranking over the whole history,
 * `Other` the total less them); one grouped by several dimensions, by empty values, or split by
 * currency reads every group ranked over the history, as before, and has no identity.
 */
export async function historyTotal(
  run: Run,
  q: CostQuery,
  out: QueryOut,
  day: Window,
  signature: string,
  prefetched?: Promise<Computed | undefined>,
  versioned?: string,
): Promise<KnownHistory> {
  const base = withoutWindow(q);
  const groupBy = groupByOf(q.groupBy);
  const dim = groupBy[0];
  const shown = shownValues(q, out);
  const total = (await prefetched) ?? (await run.series({ ...base, groupBy: null }, day));
  const totalDays = total.groups[0]?.values ?? [];
  const simple = !groupBy.length && !total.currencies;
  if (!simple && (groupBy.length !== 1 || !dim || total.currencies || shown.some((v) => !v)))
    return { base, totalDays, read: 'ranked' };
  const key =
    versioned ??
    JSON.stringify([
      ...(await identityOf(run, signature, shown, day)),
      seriesFingerprint(totalDays.map((v) => v ?? 0)),
    ]);
  if (simple) return { base, totalDays, read: 'total', key };
  return { base, totalDays, read: 'filtered', dim, shown: shown as string[], key };
}

/**
 * The daily history of each shown series of a cost query (in `out.series` order) over the `day`
 * window, from what `historyTotal` found. The shown groups' days of a filtered read are kept for
 * the same request on the same data (its `key`).
 */
export async function histories(
  run: Run,
  q: CostQuery,
  out: QueryOut,
  day: Window,
  known: KnownHistory,
): Promise<(number | null)[][]> {
  const { base, totalDays, dim, key } = known;
  if (known.read === 'total') return out.series.map(() => totalDays);
  if (known.read === 'ranked' || !dim || !key) return rankedHistories(run, base, out, day);
  let cached = historyCache.get(key);
  if (!cached) {
    const rule: WhereRule = { field: dim, operator: 'in', value: known.shown ?? [] };
    const where = q.whereClause?.rules.length
      ? { combinator: 'and' as const, rules: [q.whereClause, rule] }
      : { combinator: 'and' as const, rules: [rule] };
    // The filter names the groups: read without ranking them over the history (at most the
    // shown groups come back, no `Other`).
    const read = await run.series({ ...base, whereClause: where }, day, { unranked: true });
    const found = new Map(
      read.groups.filter((g) => !g.other).map((g) => [String(g.key[dim]), g.values as number[]]),
    );
    // A shown group with figures in the period but none read here: the filter did not select it
    // as the grouping did (a value spelled differently); read as before rather than forecast 0.
    if (out.series.some((s) => !s.other && s.total && !found.has(String(s.group[dim]))))
      return rankedHistories(run, base, out, day);
    cached = found;
    remember(historyCache, key, found, HISTORY_ENTRIES);
  }
  const byValue = cached;
  const days = day.starts.length;
  return out.series.map((s) => {
    if (!s.other) return byValue.get(String(s.group[dim])) ?? new Array<number>(days).fill(0);
    return Array.from({ length: days }, (_, i) => {
      let rest = totalDays[i] ?? 0;
      for (const v of byValue.values()) rest -= v[i] ?? 0;
      return rest;
    });
  });
}

/** Every group's history ranked over the whole history window, matched to the shown series. */
export async function rankedHistories(
  run: Run,
  base: SeriesQuery,
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
