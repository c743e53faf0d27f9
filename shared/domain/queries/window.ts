import type { ExplorerRequest, Query } from '../../model/query-model';
import { evaluateExpression } from '../common/expr/evaluate';
import type { GroupedSeries } from '../common/expr/grouped-series';
import type { Expression } from '../common/expr/parse';
import type { Computed, QueryOut, SeriesOut, Window } from './model';
import {
  bucketFloor,
  bucketKey,
  bucketStarts,
  DAY_MS,
  MAX_BUCKETS,
  MAX_INTERNAL_BUCKETS,
  type ResolvedPeriod,
  ymd,
} from './period';
import { lookbackDays, type Plan } from './plan';
import type { Run } from './run';
import { type Aggregator, type Grouped, isPartial, reduce } from './series';

/**
 * Running one window of an explorer request (the period, or its comparison period): every query
 * computed over the period's buckets preceded by the history the expressions need, then presented
 * as the answer's series with partial marks, totals and the top-N order.
 */

function defaultReducer(q: Query): Aggregator {
  if (q.type === 'cost') return q.reducer ?? 'SUM';
  if (q.type === 'metric') return q.reducer ?? q.aggregator;
  return 'SUM';
}

/** Sums groups bucket by bucket (nulls skipped; a bucket of nulls is null). */
function sumGroups(groups: Grouped[], length: number): (number | null)[] {
  return Array.from({ length }, (_, i) =>
    reduce(
      groups.map((g) => g.values[i] ?? null),
      'SUM',
    ),
  );
}

type Totals = { series: (number | null)[]; query: number | null };

/** The answer for one window: the period's buckets with partial marks, totals, top-N order. */
export function present(
  c: Computed,
  w: Window,
  dataThrough: number | null,
  request: ExplorerRequest,
  totalsOf: (c: Computed) => Totals | undefined,
): QueryOut {
  const aggBy = w.period.aggBy;
  const starts = w.starts.slice(w.offset);
  const reducer = defaultReducer(c.query);
  const exprTotals = totalsOf(c) ?? c.totals;
  let series: SeriesOut[] = c.groups.map((g, gi) => {
    const values = g.values.slice(w.offset);
    const points = starts.map((t, i) => ({
      date: bucketKey(t, aggBy),
      value: values[i] ?? null,
      ...(isPartial(t, aggBy, w.period.end, dataThrough) ? { partial: true as const } : {}),
    }));
    return {
      group: g.key,
      points,
      total: exprTotals ? (exprTotals.series[gi] ?? null) : reduce(values, reducer),
      ...(g.other ? { other: true as const } : {}),
    };
  });
  if (request.displayOptions?.hideEmptyRows)
    series = series.filter((s) => s.points.some((p) => p.value !== null && p.value !== 0));
  series.sort(
    (a, b) => (a.other ? 1 : 0) - (b.other ? 1 : 0) || (b.total ?? -Infinity) - (a.total ?? -Infinity),
  );
  const whole = sumGroups(
    c.groups.map((g) => ({ ...g, values: g.values.slice(w.offset) })),
    starts.length,
  );
  return {
    name: c.query.name,
    type: c.query.type,
    alias: c.query.alias ?? null,
    unit: c.unit,
    currency: c.currency,
    ...(c.currencies ? { currencies: c.currencies } : {}),
    ...(c.conversion ? { conversion: c.conversion } : {}),
    series,
    // Amounts in several currencies are never summed into one figure.
    total: c.currencies ? null : exprTotals ? exprTotals.query : reduce(whole, reducer),
  };
}

export async function runWindow(
  run: Run,
  plan: Plan,
  period: ResolvedPeriod,
  dataThroughOfInfo: Promise<number | null>,
) {
  const aggBy = period.aggBy;
  bucketStarts(period.start, period.end, aggBy, MAX_BUCKETS); // the cap applies to the period itself
  const history = aggBy === 'Period' ? 0 : plan.historyDays;
  const starts =
    aggBy === 'Period'
      ? [period.start]
      : bucketStarts(period.start - history * DAY_MS, period.end, aggBy, MAX_INTERNAL_BUCKETS);
  const offset = aggBy === 'Period' ? 0 : starts.indexOf(bucketFloor(period.start, aggBy));
  const w: Window = { starts, period, offset };
  const done = new Map<string, Computed>();
  const computed = await Promise.all(plan.series.map((q) => run.series(q, w)));
  for (const c of computed) done.set(c.query.name, c);
  for (const { query, expr } of plan.exprs) done.set(query.name, run.expression(query, expr, w, done));
  const dataThrough = await dataThroughOfInfo;

  // A formula's total is the formula over its operands' totals when it reads no history;
  // otherwise (and for conditions) its series reduced (conditions: SUM, the buckets that hold).
  const totals = new Map<string, Totals>();
  const out: QueryOut[] = [];
  const totalsOf = (c: Computed) => totals.get(c.query.name);
  for (const q of run.request.queries) {
    const c = done.get(q.name)!;
    const parsed = plan.exprs.find((e) => e.query.name === q.name);
    if (
      parsed &&
      q.type === 'formula' &&
      lookbackDays(parsed.expr.lookback) === 0 &&
      !q.rollingAggregation &&
      !q.shiftAmount
    ) {
      const t = formulaTotals(
        parsed.expr,
        c,
        (ref) =>
          out.find((o) => o.name === ref) ?? present(done.get(ref)!, w, dataThrough, run.request, totalsOf),
        done,
        period.start,
      );
      if (t) totals.set(q.name, t);
    }
    out.push(present(c, w, dataThrough, run.request, totalsOf));
  }
  return { out, done, w };
}

/**
 * A formula's totals (per group and overall) as the formula over its operands' totals, or
 * undefined when it cannot be evaluated so (then the reducer over its series is the total).
 */
function formulaTotals(
  expr: Expression,
  c: Computed,
  outOf: (ref: string) => QueryOut,
  done: Map<string, Computed>,
  periodStart: number,
): Totals | undefined {
  try {
    const perGroup: Record<string, GroupedSeries> = {};
    const whole: Record<string, GroupedSeries> = {};
    for (const ref of expr.refs) {
      const refOut = outOf(ref);
      perGroup[ref] = {
        groups: done.get(ref)!.groups.map((g) => ({ key: g.key, values: [refTotal(refOut, g.key)] })),
      };
      whole[ref] = { groups: [{ key: {}, values: [refOut.total] }] };
    }
    const bucket = { dates: [ymd(periodStart)], bucket: 'Period' as const };
    const byGroup = evaluateExpression(expr, { ...bucket, series: perGroup });
    const overall = evaluateExpression(expr, { ...bucket, series: whole });
    const ids = c.groups.map((g) => JSON.stringify(g.key));
    return {
      series: ids.map((id) => byGroup.groups.find((g) => JSON.stringify(g.key) === id)?.values[0] ?? null),
      query: overall.groups[0]?.values[0] ?? null,
    };
  } catch {
    return undefined; // Fall back to the reducer over the series.
  }
}

function refTotal(refOut: QueryOut, key: Record<string, string | null>): number | null {
  const id = JSON.stringify(key);
  return refOut.series.find((s) => JSON.stringify(s.group) === id)?.total ?? null;
}
