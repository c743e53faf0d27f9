import { putRateDays, rateDayBounds, readRateDays } from '../../db/fx-repo';
import type { StoredRateDay } from '../../model/fx';
import { parseRateFile } from './ecb';
import { addDays, type DayFactor, dayFactors, MAX_RATE_AGE_DAYS } from './rates';

/**
 * Loading the euro reference rates (`npm run fx -- load`, `POST /admin/fx-rates`, the daily
 * `fx-fetch` schedule) and reading them for the query engine. docs/currency.md.
 */
export const DEFAULT_FX_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

/** Largest rate file fetched or posted (the whole ECB history as XML is about 6 MB). */
export const MAX_RATE_FILE_BYTES = 16 * 1024 * 1024;

export interface LoadSummary {
  source: string;
  days: number;
  /** First and last publication day of the file. */
  from: string;
  to: string;
  currencies: string[];
}

/**
 * Rate days read per process, by range, for `RATE_CACHE_MS`: rates change once a business day, and
 * a widget page would otherwise read the same days once per query. A load in this process forgets
 * them at once; other processes see new rates within the TTL.
 */
const RATE_CACHE_MS = 5 * 60_000;
const cache = new Map<string, { at: number; value: Promise<StoredRateDay[]> }>();

export function forgetRates(): void {
  cache.clear();
}

function rateDaysBetween(from: string, to: string): Promise<StoredRateDay[]> {
  const key = `${from}|${to}`;
  const hit = cache.get(key);
  const now = Date.now();
  if (hit && now - hit.at < RATE_CACHE_MS) return hit.value;
  if (cache.size > 200) cache.clear();
  const value = readRateDays(from, to);
  cache.set(key, { at: now, value });
  value.catch(() => {
    if (cache.get(key)?.value === value) cache.delete(key);
  });
  return value;
}

/**
 * Parses an ECB file (CSV or XML) and stores its days; a bad file is a 400 and stores nothing.
 * `keepExisting` stores only the days not stored yet (the demo seed's synthetic file never
 * replaces rates someone loaded).
 */
export async function loadRates(text: string, opts: { keepExisting?: boolean } = {}): Promise<LoadSummary> {
  const file = parseRateFile(text);
  let days = file.days;
  if (opts.keepExisting) {
    const stored = new Set((await readRateDays(days[0]!.day, days[days.length - 1]!.day)).map((d) => d.day));
    days = days.filter((d) => !stored.has(d.day));
  }
  await putRateDays(
    days.map((d) => ({ ...d, source: file.source })),
    new Date().toISOString(),
  );
  forgetRates();
  const currencies = new Set<string>();
  for (const d of file.days) for (const c of Object.keys(d.rates)) currencies.add(c);
  return {
    source: file.source,
    days: days.length,
    from: file.days[0]!.day,
    to: file.days[file.days.length - 1]!.day,
    currencies: [...currencies].sort(),
  };
}

/** The stored range of publication days (null before the first load). */
export function storedRateRange(): Promise<{ first: string; last: string } | null> {
  return rateDayBounds();
}

/**
 * The factors from `sources` to `target` for every calendar day of `[from, to)` that has a usable
 * rate (see `dayFactors`).
 */
export async function conversionFactors(
  sources: readonly string[],
  target: string,
  from: string,
  to: string,
): Promise<DayFactor[]> {
  const days = await rateDaysBetween(addDays(from, -MAX_RATE_AGE_DAYS), to);
  return dayFactors(days, sources, target, from, to);
}
