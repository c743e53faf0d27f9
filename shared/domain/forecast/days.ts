/**
 * Days as epoch day numbers (days since 1970-01-01, UTC) and `YYYY-MM-DD` dates, by the civil
 * calendar's arithmetic (Hinnant's `days_from_civil` / `civil_from_days`): no `Date` object per
 * day, the model converts a few hundred thousand days per explorer answer.
 */
export const DAY_MS = 86_400_000;

/** Epoch day of a proleptic Gregorian date. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Year, month (1-12) and day of month (1-31) of an epoch day. */
export function civilOf(day: number): [number, number, number] {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/**
 * `YYYY-MM-DD` → epoch day; NaN for anything else. Like `Date.parse`, a day past the month's end
 * (up to 31) rolls over into the next month.
 */
export function toDay(date: string): number {
  const m = DATE.exec(date);
  if (!m) return Number.NaN;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return Number.NaN;
  return daysFromCivil(y, mo, d);
}

/** Day of the month (1-31) of an epoch day. */
export function dayOfMonth(day: number): number {
  return civilOf(day)[2];
}

const pad2 = (v: number) => (v < 10 ? `0${v}` : `${v}`);

/** Epoch day → `YYYY-MM-DD` (years 0 … 9999). */
export function toDate(day: number): string {
  const [y, m, d] = civilOf(day);
  return `${String(y).padStart(4, '0')}-${pad2(m)}-${pad2(d)}`;
}
