import type { Unit } from './parse';

/**
 * Date arithmetic of the window functions, on instants (epoch milliseconds, UTC). Days and weeks
 * are 24-hour multiples; months are calendar months on the UTC calendar, the day of month clamped
 * to the target month's last day (2024-03-31 − 1 month = 2024-02-29), the time of day kept.
 */
export type Bucket = 'Hour' | 'Day' | 'Week' | 'Month' | 'Period';

const DAY_MS = 86_400_000;

export function minusMonths(t: number, n: number): number {
  const d = new Date(t);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() - n;
  const targetYear = y + Math.floor(m / 12);
  const targetMonth = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  const timeOfDay = t - Date.UTC(y, d.getUTCMonth(), d.getUTCDate());
  return Date.UTC(targetYear, targetMonth, day) + timeOfDay;
}

/** `t` minus `n` units. */
export function minus(t: number, n: number, unit: Unit): number {
  switch (unit) {
    case 'DAY':
      return t - n * DAY_MS;
    case 'WEEK':
      return t - n * 7 * DAY_MS;
    case 'MONTH':
      return minusMonths(t, n);
  }
}

/**
 * The start of the bucket before the one starting at `t`: the history the dates do not cover
 * begins there. `Period` is a single bucket with nothing before it (+Infinity: never covered).
 */
export function previousBucketStart(t: number, bucket: Bucket): number {
  switch (bucket) {
    case 'Hour':
      return t - 3_600_000;
    case 'Day':
      return t - DAY_MS;
    case 'Week':
      return t - 7 * DAY_MS;
    case 'Month':
      return minusMonths(t, 1);
    case 'Period':
      return Number.POSITIVE_INFINITY;
  }
}

/** `YYYY-MM-DD` (UTC midnight) or an ISO 8601 date-time, to epoch milliseconds. */
export function parseDate(s: string): number {
  const t = typeof s === 'string' ? Date.parse(s) : Number.NaN;
  if (Number.isNaN(t)) throw new Error(`evaluateExpression: date ${JSON.stringify(s)} is not ISO 8601`);
  return t;
}
