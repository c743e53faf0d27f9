import { BadRequestError } from '../../errors';
import type { RateDay } from '../../model/fx';
import { isCurrencyCode, isDay, type RateFile } from './rates';

/**
 * Parsers of the European Central Bank's published euro reference rates (docs/currency.md):
 *
 * - the XML of `eurofxref-daily.xml`, `eurofxref-hist-90d.xml` and `eurofxref-hist.xml`: a
 *   `gesmes:Envelope` whose `Cube` holds one `<Cube time='YYYY-MM-DD'>` per business day, each with
 *   `<Cube currency='USD' rate='1.0705'/>` entries;
 * - the CSV of `eurofxref-hist.csv` (`Date,USD,JPY,…` with ISO dates, `N/A` where a currency was not
 *   quoted, a trailing comma) and of the daily `eurofxref.csv` (`Date, USD, …` with `28 June 2024`).
 *
 * Every rate is "units of the currency per 1 EUR". Anything else is a 400 naming the line.
 */
export const ECB_SOURCE = 'European Central Bank';

/** Days a file may hold (the whole ECB history since 1999 is about 7,000). */
export const MAX_RATE_DAYS = 20_000;

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

function rateOf(text: string, where: string): number | undefined {
  const t = text.trim();
  if (t === '' || t.toUpperCase() === 'N/A') return undefined;
  const n = Number(t);
  if (!/^\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t) || !Number.isFinite(n) || n <= 0)
    throw new BadRequestError(`${where}: ${JSON.stringify(t.slice(0, 40))} is not a positive rate`);
  return n;
}

function checkCurrency(code: string, where: string): string {
  if (!isCurrencyCode(code))
    throw new BadRequestError(`${where}: ${JSON.stringify(code.slice(0, 20))} is not a currency code`);
  return code;
}

/** `2024-06-28` or the daily CSV's `28 June 2024`. */
function dayOf(text: string, where: string): string {
  const t = text.trim();
  if (isDay(t)) return t;
  const m = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/.exec(t);
  const month = m ? MONTHS.indexOf(m[2]!.toLowerCase()) : -1;
  if (m && month >= 0) {
    const day = `${m[3]}-${String(month + 1).padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
    if (isDay(day)) return day;
  }
  throw new BadRequestError(`${where}: ${JSON.stringify(t.slice(0, 40))} is not a date`);
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*(?:'([^']*)'|"([^"]*)")/g))
    out[m[1]!] = m[2] ?? m[3] ?? '';
  return out;
}

function decodeXmlText(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

/** The ECB XML (`gesmes:Envelope`): days in document order. */
export function parseEcbXml(text: string): RateFile {
  if (!/<(\w+:)?Envelope[\s>]/.test(text) || !/<Cube[\s>]/.test(text))
    throw new BadRequestError(
      'Not an ECB reference-rate XML file (expected a gesmes:Envelope with Cube elements)',
    );
  const sender = /<(?:\w+:)?Sender[^>]*>[\s\S]*?<(?:\w+:)?name[^>]*>([\s\S]*?)<\/(?:\w+:)?name>/.exec(text);
  const days: RateDay[] = [];
  let current: RateDay | undefined;
  // Line numbers are counted on from the previous Cube: once over the text, not once per Cube
  // (slicing from the start for each of 30,000 Cubes took 38 s for 1 MiB).
  let line = 1;
  let counted = 0;
  for (const m of text.matchAll(/<Cube\b([^>]*?)\/?>/g)) {
    const attrs = attributes(m[1] ?? '');
    for (; counted < m.index; counted++) if (text.charCodeAt(counted) === 0x0a) line++;
    const where = `line ${line}`;
    if (attrs.time !== undefined) {
      current = { day: dayOf(attrs.time, where), rates: {} };
      days.push(current);
    } else if (attrs.currency !== undefined) {
      if (!current) throw new BadRequestError(`${where}: a currency Cube outside a dated Cube`);
      const rate = rateOf(attrs.rate ?? '', where);
      const currency = checkCurrency(attrs.currency, where);
      if (currency in current.rates)
        throw new BadRequestError(`${where}: ${currency} is listed twice on ${current.day}`);
      if (rate !== undefined) current.rates[currency] = rate;
    }
    if (days.length > MAX_RATE_DAYS)
      throw new BadRequestError(`A rate file holds at most ${MAX_RATE_DAYS} days`);
  }
  return { source: sender?.[1] ? decodeXmlText(sender[1]) : ECB_SOURCE, days: finish(days) };
}

/** The ECB CSV (`eurofxref-hist.csv` or the daily `eurofxref.csv`). */
export function parseEcbCsv(text: string): RateFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  if (header[0] !== 'Date' || header.length < 2)
    throw new BadRequestError('Not an ECB reference-rate CSV file (expected a header Date,USD,JPY,…)');
  const columns = header.map((h, i) => (i === 0 || h === '' ? undefined : checkCurrency(h, 'line 1')));
  const days: RateDay[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const where = `line ${i + 1}`;
    const cells = line.split(',');
    const day: RateDay = { day: dayOf(cells[0] ?? '', where), rates: {} };
    for (let c = 1; c < cells.length; c++) {
      const cur = columns[c];
      const rate = rateOf(cells[c] ?? '', where);
      if (rate === undefined) continue;
      if (!cur) throw new BadRequestError(`${where}: a rate in a column without a currency`);
      day.rates[cur] = rate;
    }
    days.push(day);
    if (days.length > MAX_RATE_DAYS)
      throw new BadRequestError(`A rate file holds at most ${MAX_RATE_DAYS} days`);
  }
  return { source: ECB_SOURCE, days: finish(days) };
}

/** Either format, told apart by the first character (`<` is XML). */
export function parseRateFile(text: string): RateFile {
  const body = text.replace(/^\uFEFF/, '').trimStart();
  if (!body) throw new BadRequestError('The rate file is empty');
  return body.startsWith('<') ? parseEcbXml(body) : parseEcbCsv(body);
}

/** Sorted by day; a day listed twice is a 400; a file without any rate is a 400. */
function finish(days: RateDay[]): RateDay[] {
  const sorted = [...days].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i]!.day === sorted[i - 1]!.day)
      throw new BadRequestError(`The rate file lists ${sorted[i]!.day} twice`);
  const withRates = sorted.filter((d) => Object.keys(d.rates).length > 0);
  if (!withRates.length) throw new BadRequestError('The rate file holds no rates');
  return withRates;
}
