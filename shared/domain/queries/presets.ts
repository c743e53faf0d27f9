import type { DatePreset } from '../../enums';

/**
 * Date presets resolved to half-open UTC date ranges `[start, end)` as `YYYY-MM-DD`.
 *
 * - `TRAILING_<n>_DAYS`: the n days ending with today (today included, partial).
 * - `TRAILING_14_WEEKS`: the 98 days ending with today.
 * - `MTD`/`QTD`/`YTD`: from the first day of the month/quarter/year through today.
 * - `CURRENT_MONTH`/`CURRENT_QUARTER`/`CURRENT_YEAR`: the whole calendar period, future days included.
 * - `LAST_WEEK`: the previous ISO week, Monday to Sunday.
 * - `LAST_MONTH` and `LAST_INVOICE_MONTH`: the previous calendar month (billing months are calendar months).
 * - `LAST_3_MONTHS`/`LAST_6_MONTHS`/`LAST_12_MONTHS`: that many complete calendar months before the current one.
 * - `LAST_4_YEARS`: the four complete calendar years before the current one.
 */
export interface DateRange {
  start: string;
  end: string;
}

const DAY = 86_400_000;

function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function utc(y: number, m: number, d = 1): number {
  return Date.UTC(y, m, d);
}

export function resolvePreset(preset: DatePreset, now: Date = new Date()): DateRange {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const today = utc(y, m, now.getUTCDate());
  const tomorrow = today + DAY;
  const quarterStart = m - (m % 3);
  const trailing = (days: number): DateRange => ({ start: ymd(tomorrow - days * DAY), end: ymd(tomorrow) });
  const months = (back: number): DateRange => ({ start: ymd(utc(y, m - back)), end: ymd(utc(y, m)) });
  switch (preset) {
    case 'TRAILING_1_DAYS':
      return trailing(1);
    case 'TRAILING_3_DAYS':
      return trailing(3);
    case 'TRAILING_7_DAYS':
      return trailing(7);
    case 'TRAILING_30_DAYS':
      return trailing(30);
    case 'TRAILING_45_DAYS':
      return trailing(45);
    case 'TRAILING_90_DAYS':
      return trailing(90);
    case 'TRAILING_14_WEEKS':
      return trailing(98);
    case 'MTD':
      return { start: ymd(utc(y, m)), end: ymd(tomorrow) };
    case 'QTD':
      return { start: ymd(utc(y, quarterStart)), end: ymd(tomorrow) };
    case 'YTD':
      return { start: ymd(utc(y, 0)), end: ymd(tomorrow) };
    case 'CURRENT_MONTH':
      return { start: ymd(utc(y, m)), end: ymd(utc(y, m + 1)) };
    case 'CURRENT_QUARTER':
      return { start: ymd(utc(y, quarterStart)), end: ymd(utc(y, quarterStart + 3)) };
    case 'CURRENT_YEAR':
      return { start: ymd(utc(y, 0)), end: ymd(utc(y + 1, 0)) };
    case 'LAST_WEEK': {
      const weekday = (now.getUTCDay() + 6) % 7; // Monday = 0
      const thisMonday = today - weekday * DAY;
      return { start: ymd(thisMonday - 7 * DAY), end: ymd(thisMonday) };
    }
    case 'LAST_MONTH':
    case 'LAST_INVOICE_MONTH':
      return months(1);
    case 'LAST_3_MONTHS':
      return months(3);
    case 'LAST_6_MONTHS':
      return months(6);
    case 'LAST_12_MONTHS':
      return months(12);
    case 'LAST_4_YEARS':
      return { start: ymd(utc(y - 4, 0)), end: ymd(utc(y, 0)) };
  }
}
