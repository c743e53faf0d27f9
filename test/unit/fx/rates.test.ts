import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEcbCsv, parseEcbXml, parseRateFile } from '../../../shared/domain/fx/ecb';
import { addDays, dayFactors, MAX_RATE_AGE_DAYS } from '../../../shared/domain/fx/rates';
import { BadRequestError } from '../../../shared/errors';
import type { StoredRateDay } from '../../../shared/model/fx';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/fx', name), 'utf8');

/** The fixture CSV's cells, read here line by line (not through the parser under test). */
function csvCells(name: string): Map<string, Record<string, string>> {
  const [head, ...lines] = fixture(name).trim().split('\n');
  const cols = head!.split(',');
  return new Map(
    lines.map((l) => {
      const cells = l.split(',');
      return [cells[0]!, Object.fromEntries(cols.map((c, i) => [c, cells[i]!]))];
    }),
  );
}

describe('ECB rate files', () => {
  it('reads the daily XML envelope: the day, every currency, the sender', () => {
    const file = parseEcbXml(fixture('eurofxref-daily-2024-06-28.xml'));
    expect(file.source).toBe('European Central Bank');
    expect(file.days.map((d) => d.day)).toEqual(['2024-06-28']);
    const rates = file.days[0]!.rates;
    expect(Object.keys(rates)).toHaveLength(30);
    expect(rates.USD).toBe(1.0705);
    expect(rates.KRW).toBe(1474.86);
    expect(rates.GBP).toBe(0.84638);
  });

  it('reads the daily CSV (long dates, spaces) to the same rates as the XML', () => {
    const csv = parseEcbCsv(fixture('eurofxref-daily-2024-06-28.csv'));
    const xml = parseEcbXml(fixture('eurofxref-daily-2024-06-28.xml'));
    expect(csv.days).toEqual(xml.days);
  });

  it('reads the history CSV: sorted oldest first, N/A skipped, trailing comma ignored', () => {
    const file = parseRateFile(fixture('eurofxref-hist-2024-09.csv'));
    const cells = csvCells('eurofxref-hist-2024-09.csv');
    expect(file.days).toHaveLength(cells.size);
    expect(file.days[0]!.day).toBe('2024-08-26');
    expect(file.days.map((d) => d.day)).toEqual([...cells.keys()].sort());
    for (const d of file.days) {
      expect(d.rates.CYP).toBeUndefined();
      expect(d.rates.USD).toBe(Number(cells.get(d.day)!.USD));
      expect(d.rates.KRW).toBe(Number(cells.get(d.day)!.KRW));
    }
    expect(file.days.some((d) => d.day === '2024-09-16')).toBe(false);
  });

  it('reads multi-day XML (the 90-day and history files) in any order', () => {
    const xml = `<?xml version="1.0"?><gesmes:Envelope xmlns:gesmes="x"><gesmes:Sender><gesmes:name>Synthetic &amp; test</gesmes:name></gesmes:Sender><Cube>
      <Cube time="2024-01-03"><Cube currency="USD" rate="1.09"/></Cube>
      <Cube time="2024-01-02"><Cube currency="USD" rate="1.1"/><Cube currency="JPY" rate="155.5"/></Cube></Cube></gesmes:Envelope>`;
    const file = parseRateFile(xml);
    expect(file.source).toBe('Synthetic & test');
    expect(file.days).toEqual([
      { day: '2024-01-02', rates: { USD: 1.1, JPY: 155.5 } },
      { day: '2024-01-03', rates: { USD: 1.09 } },
    ]);
  });

  it.each([
    ['', 'empty'],
    ['hello,world\n1,2', 'Not an ECB reference-rate CSV'],
    ['Date,USD\n2024-13-01,1.1', 'line 2'],
    ['Date,USD\n2024-01-02,abc', 'line 2'],
    ['Date,USD\n2024-01-02,-1', 'not a positive rate'],
    ['Date,usd\n2024-01-02,1.1', 'not a currency code'],
    ['Date,USD\n2024-01-02,1.1\n2024-01-02,1.2', 'twice'],
    ['Date,USD\n2024-01-02,N/A', 'no rates'],
    ['<html><body>nope</body></html>', 'Not an ECB reference-rate XML'],
  ])('refuses a bad file with a 400 naming the problem (%#)', (text, message) => {
    expect(() => parseRateFile(text)).toThrow(BadRequestError);
    expect(() => parseRateFile(text)).toThrow(message);
  });
});

describe('as-of factors and cross rates', () => {
  const days: StoredRateDay[] = [
    { day: '2024-09-05', rates: { USD: 1.1, KRW: 1470, CAD: 1.5 }, source: 'ECB' },
    { day: '2024-09-06', rates: { USD: 1.2, KRW: 1480, CAD: 1.6 }, source: 'ECB' }, // Friday
    { day: '2024-09-09', rates: { USD: 1.25, KRW: 1490 }, source: 'ECB' }, // Monday, CAD not quoted
  ];

  it('uses Friday for the weekend and the last quote of a currency missing that day', () => {
    const f = dayFactors(days, ['CAD'], 'USD', '2024-09-05', '2024-09-10');
    const at = (day: string) => f.find((x) => x.day === day);
    expect(at('2024-09-05')?.factor).toBeCloseTo(1.1 / 1.5, 12);
    for (const d of ['2024-09-06', '2024-09-07', '2024-09-08']) {
      expect(at(d)?.factor).toBeCloseTo(1.2 / 1.6, 12);
      expect(at(d)?.rateDay).toBe('2024-09-06');
    }
    // Monday: USD of Monday, CAD of Friday (the last quote on or before the day).
    expect(at('2024-09-09')?.factor).toBeCloseTo(1.25 / 1.6, 12);
    expect(at('2024-09-09')?.rateDay).toBe('2024-09-09');
  });

  it('crosses through EUR (USD→KRW = EUR→KRW / EUR→USD) and handles EUR on either side', () => {
    const [usdKrw] = dayFactors(days, ['USD'], 'KRW', '2024-09-05', '2024-09-06');
    expect(usdKrw?.factor).toBeCloseTo(1470 / 1.1, 9);
    const [eurUsd] = dayFactors(days, ['EUR'], 'USD', '2024-09-05', '2024-09-06');
    expect(eurUsd?.factor).toBeCloseTo(1.1, 12);
    const [usdEur] = dayFactors(days, ['USD'], 'EUR', '2024-09-05', '2024-09-06');
    expect(usdEur?.factor).toBeCloseTo(1 / 1.1, 12);
  });

  it('has no factor before the first rate, after a rate grows too old, or for an unquoted currency', () => {
    const f = dayFactors(days, ['CAD', 'CHF'], 'USD', '2024-09-01', '2024-09-30');
    const daysOf = (c: string) => f.filter((x) => x.currency === c).map((x) => x.day);
    expect(daysOf('CHF')).toEqual([]);
    const cad = daysOf('CAD');
    expect(cad[0]).toBe('2024-09-05');
    // CAD last quoted on the 6th: usable through the 6th + MAX_RATE_AGE_DAYS.
    expect(cad[cad.length - 1]).toBe(addDays('2024-09-06', MAX_RATE_AGE_DAYS));
  });
});
