import type { DatePreset } from '../../enums';
import { BadRequestError } from '../../errors';
import type { Period } from '../../model/query-model';
import { type DateRange, resolvePreset } from './presets';

/**
 * Periods and buckets of the query engine. Every instant is epoch milliseconds (UTC); dates are
 * `YYYY-MM-DD` calendar days. A period is the half-open day range `[start, end)`:
 * - a date preset is resolved against "now" read in the organisation's timezone (so "today" is the
 *   organisation's today), with the preset table of ./presets.ts;
 * - explicit `startDate`/`endDate` are taken by their calendar date as written (`2024-05-31T00:00:00Z`
 *   is May 31), both days included, like the reference product's inclusive `from`/`to`;
 * - with neither, the dashboard's, else the last 30 days (`TRAILING_30_DAYS`).
 * Billing rows carry UTC charge periods, so buckets are UTC: a day bucket holds the rows whose
 * `ChargePeriodStart` falls on that UTC day.
 */
export type AggBy = Period['aggBy'];
export type ShiftUnit = 'DAY' | 'WEEK' | 'MONTH';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Most buckets a period may hold (2,000 ≈ 5.4 years of days, 83 days of hours): past it, a 400. */
export const MAX_BUCKETS = 2_000;
/** Buckets computed internally (history for windows, shifts) past the period: a bound of ours. */
export const MAX_INTERNAL_BUCKETS = 6_000;
export const DEFAULT_PRESET: DatePreset = 'TRAILING_30_DAYS';

export function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function dayMs(date: string): number {
  return Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
}

/** `t` plus `n` calendar months, the day clamped to the target month's last day, time of day kept. */
export function addMonths(t: number, n: number): number {
  const d = new Date(t);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const ty = y + Math.floor(m / 12);
  const tm = ((m % 12) + 12) % 12;
  const last = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  const timeOfDay = t - Date.UTC(y, d.getUTCMonth(), d.getUTCDate());
  return Date.UTC(ty, tm, Math.min(d.getUTCDate(), last)) + timeOfDay;
}

export function addUnits(t: number, n: number, unit: ShiftUnit): number {
  if (unit === 'MONTH') return addMonths(t, n);
  return t + n * (unit === 'WEEK' ? 7 : 1) * DAY_MS;
}

/** The wall-clock time of `now` in `timeZone`, as an instant whose UTC fields read that time. */
export function wallClock(now: Date, timeZone: string): Date {
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(now);
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return new Date(
      Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')),
    );
  } catch {
    return now; // an unknown time zone reads as UTC
  }
}

/** The start of the bucket holding `t`. `Period` buckets start at the period's start. */
export function bucketFloor(t: number, aggBy: AggBy, periodStart = t): number {
  const d = new Date(t);
  switch (aggBy) {
    case 'Hour':
      return Math.floor(t / HOUR_MS) * HOUR_MS;
    case 'Day':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'Week': {
      const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      return day - ((d.getUTCDay() + 6) % 7) * DAY_MS; // ISO weeks start on Monday
    }
    case 'Month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'Period':
      return periodStart;
  }
}

export function nextBucket(t: number, aggBy: AggBy, periodEnd = Number.POSITIVE_INFINITY): number {
  switch (aggBy) {
    case 'Hour':
      return t + HOUR_MS;
    case 'Day':
      return t + DAY_MS;
    case 'Week':
      return t + 7 * DAY_MS;
    case 'Month':
      return addMonths(t, 1);
    case 'Period':
      return periodEnd;
  }
}

/** A bucket's `date` in answers: `YYYY-MM-DD`, or an ISO date-time for hours. */
export function bucketKey(t: number, aggBy: AggBy): string {
  return aggBy === 'Hour' ? `${new Date(t).toISOString().slice(0, 13)}:00:00Z` : ymd(t);
}

/** The bucket starts covering `[start, end)` (the first one may start before `start`). */
export function bucketStarts(start: number, end: number, aggBy: AggBy, cap = MAX_BUCKETS): number[] {
  if (aggBy === 'Period') return [start];
  const out: number[] = [];
  for (let t = bucketFloor(start, aggBy); t < end; t = nextBucket(t, aggBy)) {
    out.push(t);
    if (out.length > cap)
      throw new BadRequestError(
        `The period holds more than ${cap} ${aggBy.toLowerCase()} buckets; choose a shorter period or a coarser aggBy`,
      );
  }
  return out;
}

export interface ResolvedPeriod {
  /** Half-open, in epoch ms at UTC midnight. */
  start: number;
  end: number;
  aggBy: AggBy;
  /** The preset it came from, if any (the comparison period follows it). */
  preset?: DatePreset;
}

export interface PeriodDefaults {
  datePreset?: DatePreset | null;
  startDate?: string | null;
  endDate?: string | null;
}

function fromRange(range: DateRange): { start: number; end: number } {
  return { start: dayMs(range.start), end: dayMs(range.end) };
}

/** A date-time or date as its calendar date, checked. */
function calendarDay(value: string, field: string): number {
  const t = dayMs(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(t))
    throw new BadRequestError(`period.${field} must be a date or an ISO date-time`);
  return t;
}

/**
 * Resolves a request period. The widget's own preset or dates win; then the dashboard's
 * (`defaults`); then the last 30 days. A preset wins over dates given at the same level. A start
 * without an end runs through today; an end without a start is a 400.
 */
export function resolvePeriod(
  period: Pick<Period, 'aggBy' | 'datePreset' | 'startDate' | 'endDate'>,
  opts: { now: Date; timeZone: string; defaults?: PeriodDefaults },
): ResolvedPeriod {
  const local = wallClock(opts.now, opts.timeZone);
  const today = dayMs(ymd(local.getTime()));
  const pick = (p: PeriodDefaults): ResolvedPeriod | undefined => {
    if (p.datePreset)
      return { ...fromRange(resolvePreset(p.datePreset, local)), aggBy: period.aggBy, preset: p.datePreset };
    if (p.startDate || p.endDate) {
      if (!p.startDate) throw new BadRequestError('period.startDate is required with period.endDate');
      const start = calendarDay(p.startDate, 'startDate');
      const end = p.endDate ? calendarDay(p.endDate, 'endDate') + DAY_MS : today + DAY_MS;
      if (end <= start) throw new BadRequestError('period.endDate must not be before period.startDate');
      return { start, end, aggBy: period.aggBy };
    }
    return undefined;
  };
  return (
    pick(period) ??
    (opts.defaults && pick(opts.defaults)) ?? {
      ...fromRange(resolvePreset(DEFAULT_PRESET, local)),
      aggBy: period.aggBy,
      preset: DEFAULT_PRESET,
    }
  );
}

/** Calendar presets and how many months back their preceding period lies. */
const MONTH_SHIFT: Partial<Record<DatePreset, number>> = {
  MTD: 1,
  CURRENT_MONTH: 1,
  LAST_MONTH: 1,
  LAST_INVOICE_MONTH: 1,
  QTD: 3,
  CURRENT_QUARTER: 3,
  LAST_3_MONTHS: 3,
  LAST_6_MONTHS: 6,
  YTD: 12,
  CURRENT_YEAR: 12,
  LAST_12_MONTHS: 12,
  LAST_4_YEARS: 48,
};

/**
 * The comparison period: explicit dates when both are given, else the preceding period. For a
 * calendar preset that is the same calendar span moved back (LAST_MONTH → the month before, MTD →
 * the previous month up to the same day, YTD → last year up to the same day); otherwise the same
 * number of days immediately before.
 */
export function comparisonOf(
  primary: ResolvedPeriod,
  comparison: { startDate: string | null; endDate: string | null },
): ResolvedPeriod {
  if (comparison.startDate && comparison.endDate) {
    const start = calendarDay(comparison.startDate, 'comparisonPeriod.startDate');
    const end = calendarDay(comparison.endDate, 'comparisonPeriod.endDate') + DAY_MS;
    if (end <= start)
      throw new BadRequestError('period.comparisonPeriod.endDate must not be before its startDate');
    return { start, end, aggBy: primary.aggBy };
  }
  const months = primary.preset ? MONTH_SHIFT[primary.preset] : undefined;
  if (months) {
    return {
      start: addMonths(primary.start, -months),
      end: addMonths(primary.end, -months),
      aggBy: primary.aggBy,
    };
  }
  const length = primary.end - primary.start;
  return { start: primary.start - length, end: primary.start, aggBy: primary.aggBy };
}
