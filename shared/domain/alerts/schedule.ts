import type { StoredAlert } from '../../model/alerts';

/**
 * Calendar arithmetic of alert evaluation, on `YYYY-MM-DD` billing days (UTC dates, as billing
 * data is dated). Pure functions, unit-tested.
 */
const DAY_MS = 86_400_000;

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** Monday of the ISO week holding `day`. */
export function isoWeekStart(day: string): string {
  const dow = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, -((dow + 6) % 7));
}

export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

function monthEnd(day: string): string {
  const d = new Date(`${monthStart(day)}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return addDays(d.toISOString().slice(0, 10), -1);
}

/**
 * The last complete evaluation period that ends on or before `dataThrough` (the last complete day
 * of billing data): that day (DAILY), the last whole ISO week (WEEKLY), the last whole month (MONTHLY).
 */
export function lastCompletePeriod(
  period: StoredAlert['evaluationPeriod'],
  dataThrough: string,
): { start: string; end: string } {
  if (period === 'DAILY') return { start: dataThrough, end: dataThrough };
  if (period === 'WEEKLY') {
    const end =
      addDays(dataThrough, 1) === isoWeekStart(addDays(dataThrough, 1))
        ? dataThrough
        : addDays(isoWeekStart(dataThrough), -1);
    return { start: isoWeekStart(end), end };
  }
  const end = monthEnd(dataThrough) === dataThrough ? dataThrough : addDays(monthStart(dataThrough), -1);
  return { start: monthStart(end), end };
}

/** The period of the same length just before `p` (the previous day, week or month). */
export function previousPeriod(
  period: StoredAlert['evaluationPeriod'],
  p: { start: string; end: string },
): { start: string; end: string } {
  const end = addDays(p.start, -1);
  if (period === 'MONTHLY') return { start: monthStart(end), end };
  return { start: addDays(p.start, -(daysBetween(p.start, p.end) + 1)), end };
}

/** Hour (UTC) at which due alerts are evaluated, late enough for the previous day's first billing rows. */
export const EVALUATION_HOUR_UTC = 6;

/**
 * The next time the sweep should enqueue an alert after `now`: the next 06:00 UTC (DAILY), the next
 * Monday 06:00 UTC (WEEKLY), the next 3rd of a month 06:00 UTC (MONTHLY: the previous month is
 * complete once its last day's data has arrived).
 */
export function nextEvaluationAt(period: StoredAlert['evaluationPeriod'], now: Date): string {
  const at = (day: string) => `${day}T${String(EVALUATION_HOUR_UTC).padStart(2, '0')}:00:00.000Z`;
  const today = now.toISOString().slice(0, 10);
  const after = (day: string) => Date.parse(at(day)) > now.getTime();
  if (period === 'DAILY') return at(after(today) ? today : addDays(today, 1));
  if (period === 'WEEKLY') {
    const monday = isoWeekStart(today);
    return at(after(monday) ? monday : addDays(monday, 7));
  }
  const third = `${today.slice(0, 7)}-03`;
  if (after(third)) return at(third);
  const next = new Date(`${monthStart(today)}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return at(`${next.toISOString().slice(0, 7)}-03`);
}
