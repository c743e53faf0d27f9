import type { RateDay, StoredRateDay } from '../../model/fx';
/**
 * Dated euro reference rates and the conversion they give (docs/currency.md). A rate is "units of
 * the currency per 1 EUR" as published on a business day; a day without publication (weekend,
 * TARGET holiday) uses the last rate published on or before it, at most `MAX_RATE_AGE_DAYS` old.
 * Cross rates go through EUR: an amount in `from` is worth `amount × rate(to) / rate(from)` in
 * `to` (USD→KRW = EUR→KRW / EUR→USD), with `rate(EUR) = 1`.
 */
export const BASE_CURRENCY = 'EUR';

/**
 * How old the last published rate may be and still apply to a day. The ECB's longest gap is the
 * Easter and Christmas closures (4 days); a longer one means the daily load stopped, and a stale
 * rate would be converted silently, so the day has no rate (a 422 when rows need it).
 */
export const MAX_RATE_AGE_DAYS = 7;

/** A parsed rate file: who published it and its days, oldest first. */
export interface RateFile {
  source: string;
  days: RateDay[];
}

/** One calendar day's factor from one currency to the target (what the SQL join reads). */
export interface DayFactor {
  currency: string;
  /** Calendar day `YYYY-MM-DD`. */
  day: string;
  /** Multiply an amount in `currency` by this to get the target currency. */
  factor: number;
  /** The publication day of the rates used (the later of the two when the pair's days differ). */
  rateDay: string;
  source: string;
}

const DAY_MS = 86_400_000;

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code);
}

export function isDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const t = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
}

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

interface Quote {
  rate: number;
  day: string;
  source: string;
}

/**
 * The factors from each of `sources` to `target` for every calendar day of `[from, to)`, from
 * `days` (sorted by day, starting at least `MAX_RATE_AGE_DAYS` before `from`). A day whose rate of
 * either currency is missing or too old has no entry: the query then fails on the rows that need
 * it, naming the currency and the day.
 */
export function dayFactors(
  days: readonly StoredRateDay[],
  sources: readonly string[],
  target: string,
  from: string,
  to: string,
): DayFactor[] {
  const wanted = [...new Set([...sources, target])].filter((c) => c !== BASE_CURRENCY);
  const last = new Map<string, Quote>();
  const out: DayFactor[] = [];
  let i = 0;
  for (let day = from; day < to; day = addDays(day, 1)) {
    while (i < days.length && days[i]!.day <= day) {
      const d = days[i]!;
      for (const c of wanted) {
        const rate = d.rates[c];
        if (rate !== undefined) last.set(c, { rate, day: d.day, source: d.source });
      }
      i++;
    }
    const oldest = addDays(day, -MAX_RATE_AGE_DAYS);
    const quote = (c: string): Quote | undefined => {
      if (c === BASE_CURRENCY) return { rate: 1, day, source: '' };
      const q = last.get(c);
      return q && q.day >= oldest ? q : undefined;
    };
    const to_ = quote(target);
    if (!to_) continue;
    for (const c of sources) {
      if (c === target) continue;
      const from_ = quote(c);
      if (!from_) continue;
      const rateDay =
        c === BASE_CURRENCY ? to_.day : target === BASE_CURRENCY ? from_.day : maxDay(from_.day, to_.day);
      out.push({
        currency: c,
        day,
        factor: to_.rate / from_.rate,
        rateDay,
        source: from_.source || to_.source,
      });
    }
  }
  return out;
}

function maxDay(a: string, b: string): string {
  return a > b ? a : b;
}
