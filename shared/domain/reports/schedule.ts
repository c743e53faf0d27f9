import { DateTime, FixedOffsetZone } from 'luxon';
import type { Report } from '../../model/reports';
import { validZone } from './time-zone';

/**
 * When a scheduled report runs next. Runs happen at the delivery hour (DEFAULT_DELIVERY_HOUR,
 * 08:00) in the organisation's IANA timezone (UTC when unset): DAILY every day, WEEKDAYS Monday to
 * Friday, WEEKLY on `scheduledWeekday` (0 = Sunday … 6 = Saturday), MONTHLY on the 1st.
 *
 * Wall-clock arithmetic goes through luxon, which resolves a local time to an instant with the
 * zone's rules: a delivery hour that a DST change skips (02:30 on a spring-forward night) moves
 * forward by the gap, and a repeated hour (autumn) is the first of the two.
 */
export const DEFAULT_DELIVERY_HOUR = 8;

export type ScheduleFields = Pick<Report, 'scheduledPeriod' | 'scheduledWeekday'>;

/** luxon weekday (1 = Monday … 7 = Sunday) to the report's convention (0 = Sunday … 6). */
const weekday0 = (d: DateTime) => d.weekday % 7;

function runsOn(s: ScheduleFields, d: DateTime): boolean {
  switch (s.scheduledPeriod) {
    case 'DAILY':
      return true;
    case 'WEEKDAYS':
      return d.weekday <= 5;
    case 'WEEKLY':
      return weekday0(d) === s.scheduledWeekday;
    case 'MONTHLY':
      return d.day === 1;
    default:
      return false;
  }
}

/**
 * The first run strictly after `after`, as an ISO instant (UTC, milliseconds), or null for an
 * on-demand report (or a WEEKLY one without a weekday, which validation refuses anyway).
 */
export function nextRunAfter(
  s: ScheduleFields,
  after: Date,
  opts: { timeZone?: string | null; hour?: number } = {},
): string | null {
  if (!s.scheduledPeriod) return null;
  if (s.scheduledPeriod === 'WEEKLY' && (s.scheduledWeekday === null || s.scheduledWeekday === undefined))
    return null;
  const zone = validZone(opts.timeZone);
  const hour = opts.hour ?? DEFAULT_DELIVERY_HOUR;
  const day0 = DateTime.fromJSDate(after, { zone }).startOf('day');
  // A month plus a day covers every cadence (MONTHLY is the longest gap).
  for (let i = 0; i <= 32; i++) {
    const day = day0.plus({ days: i });
    if (!runsOn(s, day)) continue;
    const at = firstInstant(
      { year: day.year, month: day.month, day: day.day, hour, minute: 0, second: 0, millisecond: 0 },
      zone,
    );
    if (at.toMillis() > after.getTime()) return at.toUTC().toISO();
  }
  return null;
}

type WallTime = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
};

/**
 * The earliest instant at which the zone's clock shows `t`. luxon resolves a repeated wall time
 * (the hour a DST end repeats) to its later instant; the offsets in force a few hours either side
 * give every reading, and the earliest whose local time is `t` is taken. A skipped wall time moves
 * forward by the gap (luxon's resolution).
 */
function firstInstant(t: WallTime, zone: string): DateTime {
  const at = DateTime.fromObject(t, { zone });
  let best = at;
  for (const probe of [at.minus({ hours: 3 }), at.plus({ hours: 3 })]) {
    if (probe.offset === at.offset) continue;
    const alt = DateTime.fromObject(t, { zone: FixedOffsetZone.instance(probe.offset) }).setZone(zone);
    const same = alt.hour === t.hour && alt.minute === t.minute && alt.day === t.day;
    if (same && alt.toMillis() < best.toMillis()) best = alt;
  }
  return best;
}

/** True when a change of these fields means the next run must be computed again. */
/** A report the sweep delivers: active, scheduled, not archived. Only these get a next run (and sit on the due index). */
export function isDeliverable(
  r: Pick<Report, 'status' | 'scheduledPeriod' | 'archivedAt' | 'scheduledWeekday'>,
): boolean {
  return r.status === 'ACTIVE' && !r.archivedAt && r.scheduledPeriod !== null;
}

export function scheduleChanged(
  a: Pick<Report, 'status' | 'scheduledPeriod' | 'scheduledWeekday' | 'archivedAt'>,
  b: Pick<Report, 'status' | 'scheduledPeriod' | 'scheduledWeekday' | 'archivedAt'>,
): boolean {
  return (
    a.status !== b.status ||
    a.scheduledPeriod !== b.scheduledPeriod ||
    a.scheduledWeekday !== b.scheduledWeekday ||
    Boolean(a.archivedAt) !== Boolean(b.archivedAt)
  );
}
