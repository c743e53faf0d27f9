import { DependencyUnavailableError } from '../../errors';
import { log } from '../../log';
import type { StoredAlert } from '../../model/alerts';
import type { ExplorerRequest, Query } from '../../model/query-model';
import { getWarehouseQueries } from '../../warehouse/queries';
import type { BillingInfo } from '../../warehouse/warehouse-query';
import { parseExpression } from '../common/expr/parse';
import { windowNodes } from '../common/expr/walk';
import { dataThroughOf, runExplorer } from '../queries/engine';
import type { ExplorerResult, QueryOut } from '../queries/model';
import { addMonths, dayMs, ymd } from '../queries/period';
import { baselineKey } from './explain';
import { CONDITION_QUERY_NAME } from './rules';
import { addDays, lastCompletePeriod, previousPeriod } from './schedule';
import type { AlertSeries, AlertSeriesSource } from './series';

/**
 * The evaluator's series source, through the query engine (`runExplorer`; no SQL of its own).
 *
 * - `dataThrough` is the engine's (`dataThroughOf` over the port's `billingInfo`): the last complete
 *   day. The alert's queries are read by Day over explicit dates that END on it, so nothing partial
 *   is ever evaluated.
 * - Condition alerts read the 4-day window `[dataThrough − 3, dataThrough]`; the engine reads the
 *   condition's own `lookback` (the history of its window functions) before it. Each window function
 *   over a query (`rollingMedian(ec2, 28, DAY)`) is added as a hidden formula so its value reaches
 *   the message as a baseline, keyed as `baselineKey` spells it.
 * - Threshold variants read the last complete period and the one before it.
 * - `days: n` widens the window so each of the last n days can be evaluated (widget data: 30,
 *   backtest: 90).
 * - Values are summed over groups (the `Other` rest included); the condition is 1 on a day where it
 *   holds for any group.
 *
 * One source is made per worker invocation (`createEngineSeriesSource()`). It memoises the
 * organisation's `dataThrough`, and it reads alerts that ask the same queries (same organisation,
 * scope and `queries`; the window is the union of theirs) with ONE engine request: their queries once, plus each distinct
 * condition and baseline formula of the group as a query of its own, so the warehouse is asked once
 * per distinct query set (`costSeriesMany` batching the metrics) however many alerts share it.
 * `prepare(alerts)` announces the alerts about to be read so they are grouped before any read
 * starts; a `read` of an alert not announced forms its own group.
 */
/** Days of the window a condition is evaluated on, ending at `dataThrough` (the last one decides). */
export const CONDITION_WINDOW_DAYS = 4;
const BASELINE_PREFIX = 'alert_baseline';
const CONDITION_PREFIX = CONDITION_QUERY_NAME;
/** Billing months read for `dataThrough`, as the engine reads them. */
const RECENT_MONTHS = 3;

/** The condition's window functions over a query, as formulas: `[baselineKey, formula]`, each once. */
export function windowBaselines(alert: Pick<StoredAlert, 'condition' | 'queries'>): [string, string][] {
  if (!alert.condition) return [];
  const names = alert.queries.map((q) => q.name);
  const out: [string, string][] = [];
  const nodes = windowNodes(parseExpression(alert.condition, { names, maxLength: 10_000 }).ast);
  for (const w of nodes) {
    if (w.arg.type !== 'ref') continue;
    const key = baselineKey(w.fn, w.arg.name, w.n, w.unit);
    if (out.some(([k]) => k === key)) continue;
    out.push([key, `${w.fn}(${w.arg.name}, ${w.n}, ${w.unit.toUpperCase()})`]);
  }
  return out;
}

/** The query's values per day, summed over its groups (null on a day no group has a value). */
function summed(q: QueryOut | undefined, days: readonly string[]): (number | null)[] {
  const total = new Map<string, number>();
  for (const s of q?.series ?? [])
    for (const p of s.points)
      if (p.value !== null && p.value !== undefined) total.set(p.date, (total.get(p.date) ?? 0) + p.value);
  return days.map((day) => total.get(day) ?? null);
}

/** 1 on the days where the condition holds for any group, else 0. */
function holds(q: QueryOut | undefined, days: readonly string[]): number[] {
  const on = new Set<string>();
  for (const s of q?.series ?? []) for (const p of s.points) if (p.value === 1) on.add(p.date);
  return days.map((day) => (on.has(day) ? 1 : 0));
}

function daysFrom(start: string, end: string): string[] {
  const out: string[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) out.push(d);
  return out;
}

/** The first day an alert's evaluation needs, given the last complete day. */
export function neededStart(alert: StoredAlert, dataThrough: string): string {
  if (alert.variant === 'CONDITION') return addDays(dataThrough, -(CONDITION_WINDOW_DAYS - 1));
  return previousPeriod(alert.evaluationPeriod, lastCompletePeriod(alert.evaluationPeriod, dataThrough))
    .start;
}

/** A key for the alert's read: alerts with equal keys are read by one engine request. */
export function seriesGroupKey(
  alert: Pick<StoredAlert, 'organizationId' | 'currency' | 'queries' | 'conditionAdvancedExplorerQuery'>,
): string {
  const { period: _period, queries: _queries, ...rest } = alert.conditionAdvancedExplorerQuery;
  return `${alert.organizationId}|${alert.currency}|${JSON.stringify(rest)}|${JSON.stringify(alert.queries.map(normalised))}`;
}

/** A user query as the combined request carries it: always visible (its values are needed), no styling. */
function normalised(q: Query): Query {
  return { ...q, visible: true, colorIndex: 0, chartType: 'LINE' } as Query;
}

/** What one alert reads out of its group's engine answer. */
interface Planned {
  result: Promise<ExplorerResult>;
  dataThrough: string;
  start: string;
  /** The alert's condition query in the combined request (condition alerts). */
  conditionName: string | null;
  /** `[baselineKey, query name]` of each of its window functions. */
  baselines: [string, string][];
}

interface Group {
  orgId: string;
  /** The alerts' currency: figures are converted at each charge day's rate (docs/currency.md). */
  currency: StoredAlert['currency'];
  start: string;
  dataThrough: string;
  base: ExplorerRequest;
  /** Extra queries by source text (conditions and baseline formulas), each added once. */
  extra: Map<string, Query>;
  names: Set<string>;
  members: { key: string; alert: StoredAlert; conditionName: string | null; baselines: [string, string][] }[];
}

function freshName(prefix: string, names: Set<string>): string {
  let i = names.size + 1;
  while (names.has(`${prefix}_${i}`)) i++;
  const name = `${prefix}_${i}`;
  names.add(name);
  return name;
}

function addExtra(g: Group, kind: 'condition' | 'formula', text: string): string {
  const id = `${kind}:${text}`;
  const known = g.extra.get(id);
  if (known) return known.name;
  const style = { visible: true, colorIndex: 0, chartType: 'LINE' };
  const q =
    kind === 'condition'
      ? { type: 'condition', name: freshName(CONDITION_PREFIX, g.names), expression: text, ...style }
      : { type: 'formula', name: freshName(BASELINE_PREFIX, g.names), formula: text, ...style };
  g.extra.set(id, q as Query);
  return q.name;
}

const dayOf = (now: Date) => now.toISOString().slice(0, 10);

/** The organisation's last complete day through the warehouse port (`billingInfo`), or null without recent data. */
async function readDataThrough(orgId: string, now: Date): Promise<string | null> {
  const since = ymd(addMonths(dayMs(now.toISOString()), -RECENT_MONTHS)).slice(0, 7);
  let info: BillingInfo;
  try {
    info = await (await getWarehouseQueries()).billingInfo(orgId, since);
  } catch (error) {
    log.error('alert series: warehouse call failed', { what: 'billingInfo', error });
    throw new DependencyUnavailableError('WAREHOUSE_UNAVAILABLE', { cause: error });
  }
  const t = dataThroughOf(info, now);
  return t === null ? null : ymd(t);
}

/** Adds an alert to the group of its query set (made on first use), widening the group's window. */
function joinGroup(
  groups: Map<string, Group>,
  key: string,
  alert: StoredAlert,
  start: string,
  dataThrough: string,
): void {
  // One read per query set: the window is the union of what its alerts need (a condition's
  // 4 days, a weekly threshold's two weeks), so each decides on the same last complete day.
  const gk = `${seriesGroupKey(alert)}|${dataThrough}`;
  let g = groups.get(gk);
  if (g && start < g.start) g.start = start;
  if (!g) {
    const base = alert.conditionAdvancedExplorerQuery;
    g = {
      orgId: alert.organizationId,
      currency: alert.currency,
      start,
      dataThrough,
      base: { ...base, queries: alert.queries.map(normalised) },
      extra: new Map(),
      names: new Set(alert.queries.map((q) => q.name)),
      members: [],
    };
    groups.set(gk, g);
  }
  const group = g;
  const conditionName = alert.condition === null ? null : addExtra(group, 'condition', alert.condition);
  const baselines = windowBaselines(alert).map(
    ([k, formula]) => [k, addExtra(group, 'formula', formula)] as [string, string],
  );
  group.members.push({ key, alert, conditionName, baselines });
}

/** Starts one engine read per group; answers each member's plan by its key. */
function readGroups(groups: Iterable<Group>, now: Date, out: Map<string, Planned | null>): void {
  for (const g of groups) {
    const request: ExplorerRequest = {
      ...g.base,
      // Explicit dates are calendar dates: the organisation's timezone does not move them.
      period: { aggBy: 'Day', startDate: g.start, endDate: g.dataThrough },
      queries: [...g.base.queries, ...g.extra.values()],
    };
    const result = runExplorer(request, { orgId: g.orgId, now, currency: g.currency });
    result.catch(() => undefined); // awaited by each member's read
    for (const m of g.members)
      out.set(m.key, {
        result,
        dataThrough: g.dataThrough,
        start: g.start,
        conditionName: m.conditionName,
        baselines: m.baselines,
      });
  }
}

/** An alert's series out of its group's engine answer. */
function seriesOf(alert: StoredAlert, p: Planned, result: ExplorerResult): AlertSeries {
  const days = daysFrom(p.start, p.dataThrough);
  const byName = new Map(result.queries.map((q) => [q.name, q]));
  const values = Object.fromEntries(alert.queries.map((q) => [q.name, summed(byName.get(q.name), days)]));
  const series: AlertSeries = { dataThrough: p.dataThrough, days, values };
  if (p.conditionName !== null) {
    series.condition = holds(byName.get(p.conditionName), days);
    series.baselines = Object.fromEntries(
      p.baselines.map(([k, name]) => [k, summed(byName.get(name), days)]),
    );
  }
  return series;
}

class EngineSeriesSource implements AlertSeriesSource {
  private readonly throughMemo = new Map<string, Promise<string | null>>();
  /** Each announced alert's plan, by organisation + id + version + window + day of `now`. */
  private readonly planned = new Map<string, Promise<Planned | null>>();

  private planKey(a: StoredAlert, now: Date, wanted: number): string {
    return `${a.organizationId}|${a.id}|${a.version}|${wanted}|${dayOf(now)}`;
  }

  private dataThroughFor(orgId: string, now: Date): Promise<string | null> {
    const key = `${orgId}|${dayOf(now)}`;
    let p = this.throughMemo.get(key);
    if (!p) {
      p = readDataThrough(orgId, now);
      this.throughMemo.set(key, p);
      // A failed read is not shared: the next alert (or the retry) reads again.
      p.catch(() => this.throughMemo.delete(key));
    }
    return p;
  }

  /** Groups the alerts not planned yet by what they read and starts one engine read per group. */
  private plan(alerts: readonly StoredAlert[], now: Date, wanted: number): void {
    const todo = new Map<string, StoredAlert>();
    for (const a of alerts) {
      const key = this.planKey(a, now, wanted);
      if (!this.planned.has(key) && !todo.has(key)) todo.set(key, a);
    }
    if (!todo.size) return;
    const all = (async () => {
      const groups = new Map<string, Group>();
      const out = new Map<string, Planned | null>();
      for (const [key, alert] of todo) {
        const dataThrough = await this.dataThroughFor(alert.organizationId, now);
        if (dataThrough === null) out.set(key, null);
        else
          joinGroup(groups, key, alert, neededStart(alert, addDays(dataThrough, -(wanted - 1))), dataThrough);
      }
      readGroups(groups.values(), now, out);
      return out;
    })();
    all.catch(() => undefined);
    for (const key of todo.keys())
      this.planned.set(
        key,
        all.then((m) => m.get(key) ?? null),
      );
  }

  prepare(alerts: readonly StoredAlert[], { now, days = 1 }: { now: Date; days?: number }): void {
    this.plan(alerts, now, Math.max(1, days));
  }

  async read(
    alert: StoredAlert,
    { now, days = 1 }: { now: Date; days?: number },
  ): Promise<AlertSeries | null> {
    const wanted = Math.max(1, days);
    const key = this.planKey(alert, now, wanted);
    this.plan([alert], now, wanted);
    try {
      const p = await this.planned.get(key);
      if (!p) return null;
      return seriesOf(alert, p, await p.result);
    } catch (error) {
      // A failed read is not shared: the retry (or the next alert) reads again.
      this.planned.delete(key);
      throw error;
    }
  }
}

export function createEngineSeriesSource(): AlertSeriesSource {
  return new EngineSeriesSource();
}
