import type { RootCauses, StoredAlert } from '../../model/alerts';
import type { ExplorerRequest, Query } from '../../model/query-model';
import { BUILTIN_DIMENSIONS } from '../../warehouse/focus-columns';
import { parseExpression } from '../common/expr/parse';
import { windowNodes } from '../common/expr/walk';
import { runExplorer } from '../queries/engine';
import type { QueryOut } from '../queries/model';
import type { RootCauseSource } from './ports';
import { rootCausesOf } from './root-causes';
import { addDays, previousPeriod } from './schedule';

/**
 * The root causes of a firing through the query engine (`runExplorer`, its public API; no SQL of
 * its own). The alert's query (`queryName`, a cost query) is asked by Day over the baseline and the
 * evaluated period in ONE engine request, grouped by the query's own `groupBy` when it has one,
 * else by service, sub-account and region together (each contributor is one combination, as cost
 * anomaly tools name a root cause, so the contributors never overlap and their changes add up to
 * the total change). Per group, the amount over the evaluated period is compared with the
 * baseline's (`rootCausesOf`). The baseline is what the alert compares with: the previous period for the threshold variants;
 * for a condition, the daily average of the n days before the evaluated day for a `rolling…(q, n,
 * DAY)` window, the day n days earlier for `timeShift(q, n, DAY)`, else the previous day.
 */
export const DEFAULT_DIMENSIONS = ['service', 'sub_account', 'region'];

/** Groups read per dimension (the engine's largest top N); the rest is summed as `Other`. */
const GROUPS = 1_000;

export interface Baseline {
  start: string;
  end: string;
  /** The baseline's amounts are multiplied by this (1/n for an n-day daily average). */
  scale: number;
  label: string;
}

/** What the alert's change is measured against (see the module comment). */
export function baselineOf(alert: StoredAlert, period: { start: string; end: string }): Baseline {
  if (alert.variant !== 'CONDITION' || !alert.condition) {
    const prev = previousPeriod(alert.evaluationPeriod, period);
    const unit =
      alert.evaluationPeriod === 'DAILY' ? 'day' : alert.evaluationPeriod === 'WEEKLY' ? 'week' : 'month';
    return {
      ...prev,
      scale: 1,
      label: `the previous ${unit} (${prev.start === prev.end ? prev.start : `${prev.start} to ${prev.end}`})`,
    };
  }
  const names = alert.queries.map((q) => q.name);
  const windows = windowNodes(parseExpression(alert.condition, { names, maxLength: 10_000 }).ast).filter(
    (w) =>
      w.arg.type === 'ref' && w.arg.name === alert.queryName && w.unit.toUpperCase() === 'DAY' && w.n > 0,
  );
  const day = period.end;
  const shift = windows.find((w) => w.fn === 'timeShift');
  const rolling = windows.find((w) => w.fn !== 'timeShift');
  if (rolling) {
    const start = addDays(day, -rolling.n);
    return {
      start,
      end: addDays(day, -1),
      scale: 1 / rolling.n,
      label: `the daily average of the ${rolling.n} days before (${start} to ${addDays(day, -1)})`,
    };
  }
  if (shift) {
    const d = addDays(day, -shift.n);
    return { start: d, end: d, scale: 1, label: `the same day ${shift.n} days earlier (${d})` };
  }
  const d = addDays(day, -1);
  return { start: d, end: d, scale: 1, label: `the previous day (${d})` };
}

/** The dimensions to break down by: the query's own grouping, else service, sub-account and region. */
function dimensionsOf(q: Query): string[] {
  const own = 'groupBy' in q ? q.groupBy : null;
  if (typeof own === 'string' && own) return [own];
  if (Array.isArray(own) && own.length) return own;
  return DEFAULT_DIMENSIONS;
}

/** A dimension as a message names it: a built-in one by its label (`sub_account` → "sub-account"), others as they are. */
export function dimensionWords(name: string): string {
  const builtin = BUILTIN_DIMENSIONS.find((d) => d.name === name || d.column === name);
  return builtin ? builtin.label.toLowerCase() : name;
}

/** Per group label, the query's amount over `[start, end]` times `scale`. */
export function amounts(
  q: QueryOut | undefined,
  range: { start: string; end: string },
  scale: number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of q?.series ?? []) {
    const label = s.other
      ? 'Other'
      : Object.values(s.group)
          .map((v) => v ?? '(no value)')
          .join(' / ') || '(all)';
    let total = 0;
    for (const p of s.points) {
      const day = p.date.slice(0, 10);
      if (day >= range.start && day <= range.end && p.value !== null) total += p.value;
    }
    if (total !== 0) out.set(label, (out.get(label) ?? 0) + total * scale);
  }
  return out;
}

/** The engine read of one breakdown: the alert's query by its groups over the baseline and the period. */
async function readBreakdown(
  alert: StoredAlert,
  q: Query,
  groupBy: string[],
  range: { start: string; end: string },
  now: Date,
) {
  const request: ExplorerRequest = {
    ...alert.conditionAdvancedExplorerQuery,
    period: { aggBy: 'Day', startDate: range.start, endDate: range.end },
    queries: [{ ...q, name: 'root_causes', visible: true, groupBy } as Query],
    limitOverride: GROUPS,
  };
  const result = await runExplorer(request, { orgId: alert.organizationId, now, currency: alert.currency });
  return result.queries.find((r) => r.name === 'root_causes');
}

/**
 * The engine-backed source. One is made per evaluator invocation: alerts that ask the same query
 * of the same organisation, scope and currency over the same days share one engine read.
 */
export function createEngineRootCauses(): RootCauseSource {
  const reads = new Map<string, Promise<QueryOut | undefined>>();
  return {
    async explain(alert, period, now): Promise<RootCauses | null> {
      const q = alert.queries.find((x) => x.name === alert.queryName);
      if (q?.type !== 'cost') return null;
      const baseline = baselineOf(alert, period);
      const groupBy = dimensionsOf(q);
      const [start = period.start] = [baseline.start, period.start].sort();
      const range = { start, end: period.end };
      const { period: _p, queries: _q, ...scope } = alert.conditionAdvancedExplorerQuery;
      const {
        name: _n,
        alias: _a,
        colorIndex: _c,
        chartType: _t,
        ...what
      } = q as Query & Record<string, unknown>;
      const key = JSON.stringify([alert.organizationId, alert.currency, scope, what, groupBy, range]);
      let read = reads.get(key);
      if (!read) {
        read = readBreakdown(alert, q, groupBy, range, now);
        reads.set(key, read);
        read.catch(() => reads.delete(key)); // a failed read is not shared
      }
      const out = await read;
      return rootCausesOf(
        {
          dimension: groupBy.map(dimensionWords).join(' / '),
          query: q.alias || q.name,
          period,
          baseline: { start: baseline.start, end: baseline.end, label: baseline.label },
        },
        amounts(out, baseline, baseline.scale),
        amounts(out, period, 1),
      );
    },
  };
}
