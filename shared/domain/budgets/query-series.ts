import type { Budget } from '../../model/budgets';
import { monthIndex, monthOf } from './rules';

/**
 * The amounts a `budget` query reads (docs/queries.md, "Budget queries"): one line's amounts, or
 * the budget's total (every line's amount of a month summed), month by month, and how a month's
 * amount is spread over its days.
 */

const DAY_MS = 86_400_000;
const dayMs = (ymd: string) => Date.parse(`${ymd}T00:00:00Z`);

/**
 * `YYYY-MM` → amount of the line whose value is `line`, or of the whole budget when `line` is
 * undefined (a month is present when any line has an amount for it). Undefined when the budget
 * has no line of that value.
 */
export function budgetAmounts(budget: Budget, line: string | undefined): Map<string, number> | undefined {
  const lines = line === undefined ? budget.lines : budget.lines.filter((l) => l.value === line);
  if (!lines.length) return undefined;
  const out = new Map<string, number>();
  for (const l of lines)
    for (const [month, amount] of Object.entries(l.amounts)) out.set(month, (out.get(month) ?? 0) + amount);
  return out;
}

/** The first instant of a `YYYY-MM` month and of the month after it (UTC calendar). */
export function monthBounds(month: string): { start: number; end: number } {
  return { start: dayMs(`${month}-01`), end: dayMs(`${monthOf(monthIndex(month) + 1)}-01`) };
}

/**
 * The planned amount over `[lo, hi)` (UTC instants on calendar days): each month's amount spread
 * evenly over its calendar days (an hour gets a 24th of its day), so the days of a month sum to its
 * amount and a whole month is its amount exactly. `factor(day)` converts a day's share to the
 * answer's currency (1 when the currencies are the same). Null when no month of the range has an
 * amount (the budget plans nothing there).
 */
export function plannedBetween(
  amounts: ReadonlyMap<string, number>,
  lo: number,
  hi: number,
  factor?: (day: string) => number,
): number | null {
  let total: number | null = null;
  for (let m = monthIndex(new Date(lo).toISOString()); ; m++) {
    const month = monthOf(m);
    const { start, end } = monthBounds(month);
    if (start >= hi) break;
    const amount = amounts.get(month);
    const from = Math.max(lo, start);
    const to = Math.min(hi, end);
    if (amount === undefined || from >= to) continue;
    let share: number;
    if (!factor) share = (amount * (to - from)) / (end - start);
    else {
      share = 0;
      const perDay = amount / ((end - start) / DAY_MS);
      for (let d = Math.floor(from / DAY_MS) * DAY_MS; d < to; d += DAY_MS) {
        const part = (Math.min(to, d + DAY_MS) - Math.max(from, d)) / DAY_MS;
        share += perDay * part * factor(new Date(d).toISOString().slice(0, 10));
      }
    }
    total = (total ?? 0) + share;
  }
  return total;
}
