import type { RootCauses } from '../../../model/alerts';
import type { Budget } from '../../../model/budgets';
import type { Query } from '../../../model/query-model';
import type { WhereClause } from '../../../model/where-clause';
import { amounts, DEFAULT_DIMENSIONS, dimensionWords } from '../../alerts/root-cause-source';
import { rootCausesOf } from '../../alerts/root-causes';
import { addDays } from '../../alerts/schedule';
import { runExplorer } from '../../queries/engine';
import { monthDays, statusRequest } from '../status';

/** How many dimension values a budget alert's message names behind the spend. */
export const TOP_CONTRIBUTORS = 3;

/**
 * The dimension a line's spend is broken down by in the message: the budget's `groupBy` for the
 * total of a budget with lines; `service` for a line (or a budget without `groupBy`), or
 * `sub_account` when the lines are services already.
 */
export function drillDimension(budget: Pick<Budget, 'groupBy'>, line: string | null): string {
  if (line === null && budget.groupBy) return budget.groupBy;
  return budget.groupBy === 'service' ? 'sub_account' : 'service';
}

/** One line of a budget (`line` null: the budget's total) in one month, up to its last day with data. */
export interface LineMonth {
  budget: Budget;
  line: string | null;
  month: string;
  dataThrough: string;
}

/** The engine context of a budget's reads: its organisation and currency, the time zone (UTC unless set), now. */
const readContext = (budget: Budget, timeZone: string | undefined, now: Date) => ({
  orgId: budget.organizationId,
  currency: budget.currency,
  timeZone: timeZone ?? 'UTC',
  now,
});

/** The budget's filter restricted to a line's value (`line` null: the budget's total). */
function lineFilter(budget: Budget, line: string | null): WhereClause | null {
  const rules: WhereClause['rules'] = [
    ...(budget.whereClause ? [budget.whereClause] : []),
    ...(line !== null && budget.groupBy ? [{ field: budget.groupBy, operator: 'in', value: [line] }] : []),
  ];
  return rules.length ? { combinator: 'and', rules } : null;
}

/**
 * The top dimension values behind a line's month-to-date spend (`line` null: the budget's total),
 * biggest first: one explorer query over the month up to `dataThrough` with the budget's scope,
 * filter and currency, restricted to the line's value.
 */
export async function topContributors(
  { budget, line, month, dataThrough }: LineMonth,
  timeZone: string | undefined,
  now: Date,
): Promise<{ dimension: string; values: { value: string; amount: number }[] }> {
  const dimension = drillDimension(budget, line);
  const { first } = monthDays(month);
  const result = await runExplorer(
    statusRequest(
      { ...budget, groupBy: dimension, whereClause: lineFilter(budget, line) },
      first,
      dataThrough,
    ),
    readContext(budget, timeZone, now),
  );
  const sums = new Map<string, number>();
  for (const s of result.queries[0]?.series ?? []) {
    if (s.other) continue;
    const value = s.group[dimension] ?? '(none)';
    let sum = 0;
    for (const p of s.points) if (p.value !== null && p.date <= dataThrough) sum += p.value;
    sums.set(value, (sums.get(value) ?? 0) + sum);
  }
  const values = [...sums]
    .filter(([, amount]) => amount > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_CONTRIBUTORS)
    .map(([value, amount]) => ({ value, amount }));
  return { dimension, values };
}

/**
 * The root causes of a line's month-to-date spend (`line` null: the budget's total), by the cost
 * alerts' method (`rootCausesOf`, docs/alerts.md "Root causes"): service × sub-account × region
 * combinations (without the budget's own `groupBy` dimension, which the line already fixes), the
 * month's days 1…d (d = `dataThrough`'s day) against the same days of the previous month (clipped
 * to its length). One engine read over both ranges.
 */
export async function budgetRootCauses(
  { budget, line, month, dataThrough }: LineMonth,
  timeZone: string | undefined,
  now: Date,
): Promise<RootCauses> {
  const groupBy = causeDimensions(budget);
  const window = causeWindow(month, dataThrough);
  const request = statusRequest(
    { ...budget, groupBy: null, whereClause: lineFilter(budget, line) },
    window.baseline.start,
    dataThrough,
  );
  const q = request.queries[0] as Query;
  const result = await runExplorer(
    { ...request, queries: [{ ...q, groupBy } as Query] },
    readContext(budget, timeZone, now),
  );
  const out = result.queries[0];
  return rootCausesOf(
    {
      dimension: groupBy.map(dimensionWords).join(' / '),
      query: line === null ? 'Budget total' : String(line),
      ...window,
    },
    amounts(out, window.baseline, 1),
    amounts(out, window.period, 1),
  );
}

/** The dimensions a budget line's root causes are broken down by: service × sub-account × region, less the budget's own `groupBy`. */
export const causeDimensions = (budget: Pick<Budget, 'groupBy'>): string[] =>
  DEFAULT_DIMENSIONS.filter((d) => d !== budget.groupBy);

/**
 * The window of a budget line's root causes: the month's days 1…d (d = `dataThrough`'s day)
 * against the same days of the previous month, clipped to its length.
 */
export function causeWindow(month: string, dataThrough: string): Pick<RootCauses, 'period' | 'baseline'> {
  const { first } = monthDays(month);
  const prevMonth = addDays(first, -1).slice(0, 7);
  const prev = monthDays(prevMonth);
  const sameDay = addDays(prev.first, Number(dataThrough.slice(8, 10)) - 1);
  const [prevEnd = prev.last] = [sameDay, prev.last].sort();
  return {
    period: { start: first, end: dataThrough },
    baseline: {
      start: prev.first,
      end: prevEnd,
      label: `the same days of ${prevMonth} (${prev.first} to ${prevEnd})`,
    },
  };
}
