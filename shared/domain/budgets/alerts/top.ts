import type { WhereClause } from '../../common/where-clause';
import { runExplorer } from '../../queries/engine';
import type { Budget } from '../model';
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

/**
 * The top dimension values behind a line's month-to-date spend (`line` null: the budget's total),
 * biggest first: one explorer query over the month up to `dataThrough` with the budget's scope,
 * filter and currency, restricted to the line's value.
 */
export async function topContributors(
  budget: Budget,
  line: string | null,
  month: string,
  dataThrough: string,
  timeZone: string | undefined,
  now: Date,
): Promise<{ dimension: string; values: { value: string; amount: number }[] }> {
  const dimension = drillDimension(budget, line);
  const rules: WhereClause['rules'] = [
    ...(budget.whereClause ? [budget.whereClause] : []),
    ...(line !== null && budget.groupBy ? [{ field: budget.groupBy, operator: 'in', value: [line] }] : []),
  ];
  const { first } = monthDays(month);
  const result = await runExplorer(
    statusRequest(
      { ...budget, groupBy: dimension, whereClause: rules.length ? { combinator: 'and', rules } : null },
      first,
      dataThrough,
    ),
    { orgId: budget.organizationId, currency: budget.currency, timeZone: timeZone ?? 'UTC', now },
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
