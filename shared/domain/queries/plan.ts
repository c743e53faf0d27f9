import { BadRequestError } from '../../errors';
import type { Query } from '../../model/query-model';
import { ExpressionError } from '../common/expr/errors';
import { type Expression, parseExpression } from '../common/expr/parse';
import type { BudgetQuery } from './budget';
import type { ShiftUnit } from './period';
import type { RollingSpec } from './series';

/**
 * Planning an explorer request: the order formulas and conditions are evaluated in, and the days
 * of history before the period their lookbacks, rolling windows and shifts need.
 */
export type SeriesQuery = Extract<Query, { type: 'cost' | 'metric' }>;
export type ExprQuery = Extract<Query, { type: 'formula' | 'condition' }>;

export interface Plan {
  /** Cost, metric and budget queries: the series the expressions read. */
  series: (SeriesQuery | BudgetQuery)[];
  /** Formulas and conditions in evaluation order (each after what it references). */
  exprs: { query: ExprQuery; expr: Expression }[];
  /** Days of history before the period the expressions need, at most. */
  historyDays: number;
}

export function lookbackDays(l: { days: number; months: number }): number {
  return l.days + 31 * l.months;
}

function shiftDays(q: { shiftAmount?: number | undefined; shiftUnit?: ShiftUnit | undefined }): number {
  if (!q.shiftAmount || !q.shiftUnit) return 0;
  const n = Math.max(0, q.shiftAmount);
  return q.shiftUnit === 'MONTH' ? n * 31 : q.shiftUnit === 'WEEK' ? n * 7 : n;
}

function rollingDays(spec: RollingSpec | undefined): number {
  if (!spec) return 0;
  if (spec.window.preset) return spec.window.preset === 'WEEK' ? 7 : 31;
  return spec.window.relativeDays ?? 0;
}

/**
 * Parses every formula and condition against the request's query names and orders them so each
 * comes after the formulas it references. An unknown name (with its position), a syntax error or
 * a cycle is a 400 naming the query.
 */
export function planQueries(queries: readonly Query[]): Plan {
  const names = queries.map((q) => q.name);
  const byName = new Map(queries.map((q) => [q.name, q]));
  const parsed = new Map<string, Expression>();
  for (const q of queries) {
    if (q.type !== 'formula' && q.type !== 'condition') continue;
    const source = q.type === 'formula' ? q.formula : q.expression;
    try {
      parsed.set(q.name, parseExpression(source, { names, maxLength: 4000 }));
    } catch (error) {
      if (error instanceof ExpressionError) throw new BadRequestError(`query ${q.name}: ${error.message}`);
      throw error;
    }
  }
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    const s = state.get(name);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...path.slice(path.indexOf(name)), name];
      throw new BadRequestError(`formulas reference each other in a cycle: ${cycle.join(' -> ')}`);
    }
    state.set(name, 'visiting');
    for (const ref of parsed.get(name)?.refs ?? []) if (parsed.has(ref)) visit(ref, [...path, name]);
    state.set(name, 'done');
    order.push(name);
  };
  for (const name of parsed.keys()) visit(name, []);

  // History each query must cover for the expressions reading it (nested windows add up).
  const need = new Map<string, number>();
  for (const name of [...order].reverse()) {
    const q = byName.get(name) as ExprQuery;
    const own =
      lookbackDays(parsed.get(name)!.lookback) +
      (q.type === 'formula' ? rollingDays(q.rollingAggregation) + shiftDays(q) : 0);
    const total = (need.get(name) ?? 0) + own;
    for (const ref of parsed.get(name)!.refs) need.set(ref, Math.max(need.get(ref) ?? 0, total));
  }
  return {
    series: queries.filter(
      (q): q is SeriesQuery | BudgetQuery => q.type === 'cost' || q.type === 'metric' || q.type === 'budget',
    ),
    exprs: order.map((name) => ({ query: byName.get(name) as ExprQuery, expr: parsed.get(name)! })),
    historyDays: Math.max(0, ...need.values()),
  };
}
