import { DependencyUnavailableError } from '../../errors';
import { log } from '../../log';
import { getWarehouseQueries } from '../../warehouse/queries';
import type { BillingInfo } from '../../warehouse/query-model';
import { parseExpression } from '../common/expr/parse';
import { windowNodes } from '../common/expr/walk';
import type { ExplorerRequest, Query } from '../common/query-model';
import { dataThroughOf, runExplorer } from '../queries/engine';
import type { ExplorerResult, QueryOut } from '../queries/model';
import { addMonths, dayMs, ymd } from '../queries/period';
import type { AlertSeries, AlertSeriesSource } from './evaluate';
import type { StoredAlert } from './model';
import { baselineKey } from './render';
import { CONDITION_QUERY_NAME } from './rules';
import { addDays, lastCompletePeriod, previousPeriod } from './schedule';

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
 * One source is made per worker invocation (`createEngineSeriesSource()`): it memoises the
 * organisation's `dataThrough` and each explorer read keyed by organisation + request JSON + period,
 * so alerts that ask the same queries over the same days share one read.
 */
/** Days of the window a condition is evaluated on, ending at `dataThrough` (the last one decides). */
export const CONDITION_WINDOW_DAYS = 4;
const BASELINE_PREFIX = 'alert_baseline';
/** Billing months read for `dataThrough`, as the engine reads them. */
const RECENT_MONTHS = 3;

/** The hidden formulas giving the condition's baselines: `[baselineKey, query name, formula]`. */
export function baselineQueries(
  alert: Pick<StoredAlert, 'condition' | 'queries'>,
): [string, string, string][] {
  if (!alert.condition) return [];
  const names = alert.queries.map((q) => q.name);
  const out: [string, string, string][] = [];
  const nodes = windowNodes(parseExpression(alert.condition, { names, maxLength: 10_000 }).ast);
  for (const w of nodes) {
    if (w.arg.type !== 'ref') continue;
    const key = baselineKey(w.fn, w.arg.name, w.n, w.unit);
    if (out.some(([k]) => k === key)) continue;
    let name = `${BASELINE_PREFIX}_${out.length + 1}`;
    for (let i = 2; names.includes(name); i++) name = `${BASELINE_PREFIX}_${out.length + 1}_${i}`;
    out.push([key, name, `${w.fn}(${w.arg.name}, ${w.n}, ${w.unit.toUpperCase()})`]);
  }
  return out;
}

/** The request an alert is read with: its `conditionAdvancedExplorerQuery` by Day plus baseline formulas. */
function requestOf(alert: StoredAlert, start: string, end: string, baselines: [string, string, string][]) {
  const base = alert.conditionAdvancedExplorerQuery;
  const extra: Query[] = baselines.map(([, name, formula]) => ({
    type: 'formula',
    name,
    visible: true,
    colorIndex: 0,
    chartType: 'LINE',
    formula,
  })) as Query[];
  const request: ExplorerRequest = {
    ...base,
    period: { aggBy: 'Day', startDate: start, endDate: end },
    queries: [...base.queries, ...extra],
  };
  return request;
}

function summed(q: QueryOut | undefined, days: readonly string[]): (number | null)[] {
  return days.map((day) => {
    if (!q) return null;
    let total = 0;
    let any = false;
    for (const s of q.series) {
      const v = s.points.find((p) => p.date === day)?.value;
      if (v !== null && v !== undefined) {
        total += v;
        any = true;
      }
    }
    return any ? total : null;
  });
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

export function createEngineSeriesSource(): AlertSeriesSource {
  const throughMemo = new Map<string, Promise<string | null>>();
  const readMemo = new Map<string, Promise<ExplorerResult>>();
  const memo = <T>(map: Map<string, Promise<T>>, key: string, fn: () => Promise<T>): Promise<T> => {
    let p = map.get(key);
    if (!p) {
      p = fn();
      map.set(key, p);
      // A failed read is not shared: the next alert (or the retry) reads again.
      p.catch(() => map.delete(key));
    }
    return p;
  };
  const dataThroughFor = (orgId: string, now: Date) =>
    memo(throughMemo, `${orgId}|${now.toISOString().slice(0, 10)}`, async () => {
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
    });

  return {
    async read(alert, { now, days: wanted = 1 }): Promise<AlertSeries | null> {
      const dataThrough = await dataThroughFor(alert.organizationId, now);
      if (dataThrough === null) return null;
      const start = neededStart(alert, addDays(dataThrough, -(Math.max(1, wanted) - 1)));
      const baselines = baselineQueries(alert);
      const request = requestOf(alert, start, dataThrough, baselines);
      const key = `${alert.organizationId}|${alert.currency}|${JSON.stringify(request)}`;
      // Explicit dates are calendar dates: the organisation's timezone does not move them. Figures
      // are in the alert's currency (converted at each charge day's rate; docs/currency.md).
      const result = await memo(readMemo, key, () =>
        runExplorer(request, { orgId: alert.organizationId, now, currency: alert.currency }),
      );
      const days = daysFrom(start, dataThrough);
      const byName = new Map(result.queries.map((q) => [q.name, q]));
      const values = Object.fromEntries(alert.queries.map((q) => [q.name, summed(byName.get(q.name), days)]));
      const series: AlertSeries = { dataThrough, days, values };
      if (alert.condition !== null) {
        const condName = conditionQueryName(alert);
        const cond = byName.get(condName);
        series.condition = days.map((day) =>
          cond?.series.some((s) => s.points.find((p) => p.date === day)?.value === 1) ? 1 : 0,
        );
        series.baselines = Object.fromEntries(
          baselines.map(([k, name]) => [k, summed(byName.get(name), days)]),
        );
      }
      return series;
    },
  };
}

/** The name of the alert's condition query in `conditionAdvancedExplorerQuery` (`alert_condition`, made unique). */
function conditionQueryName(alert: StoredAlert): string {
  const own = new Set(alert.queries.map((q) => q.name));
  const q = alert.conditionAdvancedExplorerQuery.queries.find(
    (x) => x.type === 'condition' && !own.has(x.name) && x.name.startsWith(CONDITION_QUERY_NAME),
  );
  return q?.name ?? CONDITION_QUERY_NAME;
}
