import { listBudgets } from '../../db/budgets-repo';
import { MissingRateError } from '../../warehouse/sql/compile';
import { localDay } from '../alerts/dedup';
import { statusOf } from './status';

/** Budgets a DIGEST reads (the newest first); past these the sentence says how many it read. */
export const DIGEST_MAX_BUDGETS = 50;

/** How many lines of the organisation's budgets are forecast over budget this month (a DIGEST's line). */
export interface BudgetsOverview {
  month: string;
  /** Lines whose month-end forecast is above their budget for the month. */
  over: number;
  /** Lines of the active budgets read (the `Other` lines, which have no budget, are not counted). */
  lines: number;
}

/**
 * The organisation's active budgets (at most `DIGEST_MAX_BUDGETS`) for the current month in its
 * time zone: each budget's own lines, counted over when the status's month-end forecast exceeds
 * the line's budget. A budget whose history lacks an exchange rate is left out; null without any
 * budget or billing data.
 */
export async function budgetsOverview(
  orgId: string,
  timeZone: string | undefined,
  now: Date,
): Promise<BudgetsOverview | null> {
  const page = await listBudgets(orgId, false, { limit: DIGEST_MAX_BUDGETS });
  if (!page.items.length) return null;
  const month = localDay(now, timeZone).slice(0, 7);
  let over = 0;
  let lines = 0;
  for (const budget of page.items) {
    let status: Awaited<ReturnType<typeof statusOf>>['status'];
    try {
      status = (await statusOf(budget, month, timeZone, now)).status;
    } catch (error) {
      if (error instanceof MissingRateError) continue;
      throw error;
    }
    if (!status.dataThrough) continue;
    const own = budget.groupBy === null ? status.lines : status.lines.slice(0, -1);
    lines += own.length;
    over += own.filter((l) => l.forecast !== null && l.forecast.value > l.budget).length;
  }
  return lines ? { month, over, lines } : null;
}

/** "3 of 12 budget lines are forecast over budget for 2026-11." */
export function budgetsSentence(o: BudgetsOverview): string {
  return `${o.over} of ${o.lines} budget line${o.lines === 1 ? ' is' : 's are'} forecast over budget for ${o.month}.`;
}
