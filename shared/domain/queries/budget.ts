import { getBudget } from '../../db/budgets-repo';
import { BadRequestError } from '../../errors';
import type { Budget } from '../../model/budgets';
import type { ConversionOut } from '../../model/conversion';
import type { Query } from '../../model/query-model';
import { MissingRateError } from '../../warehouse/sql/conversion';
import type { BillingInfo } from '../../warehouse/warehouse-query';
import { budgetAmounts, plannedBetween } from '../budgets/query-series';
import { conversionFactors, storedRateRange } from '../fx/service';
import type { Computed, Window } from './model';
import { DAY_MS, ymd } from './period';

export type BudgetQuery = Extract<Query, { type: 'budget' }>;

/** What a budget series needs of the explorer run it is part of (run.ts passes its own). */
export interface BudgetRun {
  orgId: string;
  /** The currency the answer is asked in, if any. */
  currency?: string | null;
  info: Promise<BillingInfo>;
  /** Where a conversion the answer states is recorded. */
  money: { conversions: ConversionOut[] };
}

/**
 * A `budget` query (docs/queries.md, "Budget queries"): the budget's planned amounts over the
 * window's buckets, each month's amount spread evenly over its calendar days, in the answer's
 * currency. The budget is read under the run's organisation only, so another organisation's
 * budget is the same 400 as an unknown one.
 */
export async function budgetSeries(run: BudgetRun, q: BudgetQuery, w: Window): Promise<Computed> {
  const budget = await getBudget(run.orgId, q.budgetId);
  if (!budget) throw new BadRequestError(`query ${q.name}: budgetId: unknown budget ${q.budgetId}`);
  const amounts = budgetAmounts(budget, q.line);
  if (!amounts)
    throw new BadRequestError(`query ${q.name}: line: budget ${q.budgetId} has no line ${q.line}`);
  const target = await targetCurrency(run, budget.currency);
  const first = w.offset > 0 ? w.starts[0]! : w.period.start;
  const bounds = w.starts.map((t, i): [number, number] => [
    Math.max(t, first),
    i + 1 < w.starts.length ? w.starts[i + 1]! : w.period.end,
  ]);
  const fx =
    target === budget.currency
      ? undefined
      : await dayFactors(budget.currency, target, bounds[0]?.[0] ?? first, w.period.end);
  const values = bounds.map(([lo, hi]) => (lo < hi ? plannedBetween(amounts, lo, hi, fx?.factor) : null));
  const conversion = fx?.described();
  if (conversion) run.money.conversions.push(conversion);
  return {
    query: q,
    groups: [{ key: {}, values }],
    unit: target,
    currency: target,
    ...(conversion ? { conversion } : {}),
  };
}

type Resolved =
  | { budget: Budget; amounts: Map<string, number> }
  | { field: 'budgetId' | 'line'; message: string };

/** The budget a query names, read under `orgId` only, and the amounts of its line (or total). */
async function resolveBudget(
  orgId: string,
  q: Pick<BudgetQuery, 'budgetId' | 'line'>,
  read: typeof getBudget = getBudget,
): Promise<Resolved> {
  const budget = await read(orgId, q.budgetId);
  if (!budget) return { field: 'budgetId', message: `unknown budget ${q.budgetId}` };
  const amounts = budgetAmounts(budget, q.line);
  if (!amounts) return { field: 'line', message: `budget ${q.budgetId} has no line ${q.line}` };
  return { budget, amounts };
}

/**
 * The save-time check of the budget queries of a query list (a dashboard widget's, a cost alert's):
 * the first whose budget is not the organisation's or whose `line` the budget does not have, at
 * its body path (`at(index, field)`) with the message naming the query (`labelOf`); undefined when
 * every one resolves. Each budget is read once.
 */
export async function budgetQueryIssue(
  orgId: string,
  /** A query model's list, or a report widget's (its budget queries have the same fields). */
  queries: readonly (Query | { type: string; name: string })[],
  at: (queryIndex: number, field: string) => string,
  labelOf: (query: { name: string }) => string,
): Promise<{ path: string; message: string } | undefined> {
  const reads = new Map<string, Promise<Budget | undefined>>();
  const once = (org: string, id: string) => {
    let read = reads.get(id);
    if (!read) {
      read = getBudget(org, id);
      reads.set(id, read);
    }
    return read;
  };
  for (const [i, q] of queries.entries()) {
    if (q.type !== 'budget' || !('budgetId' in q)) continue;
    const found = await resolveBudget(orgId, q as Pick<BudgetQuery, 'budgetId' | 'line'>, once);
    if ('field' in found) return { path: at(i, found.field), message: `${labelOf(q)}: ${found.message}` };
  }
  return undefined;
}

/**
 * The currency a budget's amounts are answered in: the one asked (the request's, dashboard's,
 * alert's or report's), else the organisation's single billing currency (so `cost / budget` divides
 * like amounts), else the budget's own.
 */
async function targetCurrency(run: BudgetRun, own: string): Promise<string> {
  if (run.currency) return run.currency;
  const info = await run.info;
  return info.currencies.length === 1 ? info.currencies[0]! : own;
}

/**
 * Per-day factors from `source` to `target` over `[from, to)`: each day's as-of rate, like the
 * explorer's (docs/currency.md). A planned day after the last stored rate (the rest of the month,
 * next months) uses the latest rate; a day before every usable rate is the explorer's 422.
 */
async function dayFactors(
  source: string,
  target: string,
  from: number,
  to: number,
): Promise<{ factor: (day: string) => number; described: () => ConversionOut }> {
  const range = await storedRateRange();
  const last = range?.last ?? null;
  const readFrom = last !== null && last < ymd(from) ? last : ymd(from);
  const end = ymd(Math.ceil(to / DAY_MS) * DAY_MS);
  const factors = await conversionFactors([source], target, readFrom, end);
  const byDay = new Map(factors.map((f) => [f.day, f]));
  const newest = factors[factors.length - 1];
  const used = new Set<string>();
  const sources = new Set<string>();
  const factor = (day: string): number => {
    const f = byDay.get(day) ?? (newest && day > newest.day ? newest : undefined);
    if (!f) throw new MissingRateError(source, day, target);
    used.add(f.rateDay);
    sources.add(f.source);
    return f.factor;
  };
  // What the answer states: the sources and publication days of the rates applied.
  const described = (): ConversionOut => {
    const days = [...used].sort();
    return {
      from: [source],
      to: target,
      source: [...sources].sort().join(', ') || null,
      rates: days.length ? { from: days[0]!, to: days[days.length - 1]! } : null,
    };
  };
  return { factor, described };
}
