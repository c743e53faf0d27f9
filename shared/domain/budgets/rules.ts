import { isAdmin, type Principal } from '../../auth/principal';
import type { FieldIssue } from '../../errors';
import type { Budget, BudgetFields } from '../../model/budgets';
import { BUDGET_LIMITS } from './schemas';

/** Months since year 0 (`2026-03` → 2026 × 12 + 2), so month arithmetic is integer arithmetic. */
export function monthIndex(month: string): number {
  return Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
}

export function monthOf(index: number): string {
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The months a budget may hold amounts for: `startMonth` and the 35 after it. */
export function budgetMonths(startMonth: string): string[] {
  const first = monthIndex(startMonth);
  return Array.from({ length: BUDGET_LIMITS.maxMonths }, (_, i) => monthOf(first + i));
}

/**
 * The cross-field rules of a budget body, first failure first (docs/budgets.md):
 * - without `groupBy`, exactly one line, whose `value` is null (the total);
 * - with `groupBy`, every line names a value (not null), each value once;
 * - every line has at least one month, each month from `startMonth` to 35 months after it.
 */
export function bodyIssue(body: BudgetFields): FieldIssue | undefined {
  if (body.groupBy === null) {
    if (body.lines.length !== 1)
      return { path: 'lines', message: 'without groupBy a budget has exactly one line' };
    if (body.lines[0]?.value !== null)
      return { path: 'lines.0.value', message: 'must be null without groupBy' };
  }
  const first = monthIndex(body.startMonth);
  const seen = new Set<string>();
  for (const [i, line] of body.lines.entries()) {
    if (body.groupBy !== null) {
      if (line.value === null)
        return { path: `lines.${i}.value`, message: `must be a value of ${body.groupBy}` };
      if (seen.has(line.value))
        return { path: `lines.${i}.value`, message: `${line.value} has a line already` };
      seen.add(line.value);
    }
    const months = Object.keys(line.amounts).sort();
    if (!months.length) return { path: `lines.${i}.amounts`, message: 'must have at least one month' };
    for (const month of months) {
      const offset = monthIndex(month) - first;
      if (offset < 0 || offset >= BUDGET_LIMITS.maxMonths) {
        return {
          path: `lines.${i}.amounts.${month}`,
          message: `must be from startMonth ${body.startMonth} to ${monthOf(first + BUDGET_LIMITS.maxMonths - 1)}`,
        };
      }
    }
  }
  return undefined;
}

/**
 * Who may change a budget (the dashboards' rule for a dashboard without a team): admins and its
 * creator. Every member of the organisation may read every budget and create one.
 */
export function canEdit(p: Principal, b: Pick<Budget, 'createdById'>): boolean {
  return isAdmin(p) || b.createdById === p.principalId;
}
