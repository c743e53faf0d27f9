import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { csvLine, FOCUS_HEADER, generateFocusRows } from '../../../infra/local/demo-data/generator';
import { loadRates } from '../../../shared/domain/fx/service';
import { runExplorer } from '../../../shared/domain/queries/engine';
import type { ExplorerResult } from '../../../shared/domain/queries/model';
import { UnprocessableError } from '../../../shared/errors';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { queryNamed as only, costQuery as q } from '../../support/explorer';
import { type CsvRow, close, num, readCsv } from '../warehouse/support';

/**
 * Currency conversion in the query engine over DuckDB, with the fixture rates loaded into the
 * table. Every expected figure is computed here: raw rows × the fixture's rate of their charge day
 * (looked up by hand from the fixture CSV), never read back from the engine's SQL.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const mixedOrg = `org_fx_mixed_${run}`;
const usdOrg = `org_fx_usd_${run}`;
const julyOrg = `org_fx_july_${run}`;
const dir = mkdtempSync(join(tmpdir(), 'fx-'));
const now = new Date('2024-10-25T12:00:00Z');
const FIXTURES = join(__dirname, '../../fixtures/fx');
let rows: CsvRow[] = [];

/** The fixture history CSV as `day → currency → rate`, parsed here with a plain split. */
const fixtureRates = new Map<string, Record<string, number>>();
for (const line of readFileSync(join(FIXTURES, 'eurofxref-hist-2024-09.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)) {
  const cells = line.split(',');
  const header = ['Date', 'USD', 'JPY', 'BGN', 'CYP', 'GBP', 'CAD', 'CNY', 'KRW'];
  const rates: Record<string, number> = { EUR: 1 };
  header.forEach((h, i) => {
    if (i > 0 && cells[i] !== 'N/A') rates[h] = Number(cells[i]);
  });
  fixtureRates.set(cells[0]!, rates);
}

/** The fixture rate of `currency` per EUR that applies to `day`: the last published on or before it. */
function rateOn(day: string, currency: string): number {
  const published = [...fixtureRates.keys()].filter((d) => d <= day).sort();
  const last = published[published.length - 1];
  if (!last) throw new Error(`no fixture rate on or before ${day}`);
  return fixtureRates.get(last)![currency]!;
}

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const cost = (r: CsvRow) => num(r.BilledCost);
/** An amount of row `r` in `target`, by hand. */
const inTarget = (r: CsvRow, target: string) =>
  r.BillingCurrency === target
    ? cost(r)
    : (cost(r) * rateOn(day(r), target)) / rateOn(day(r), String(r.BillingCurrency));

function sum(filter: (r: CsvRow) => boolean, value: (r: CsvRow) => number): number {
  return rows.filter(filter).reduce((a, r) => a + value(r), 0);
}

function expectClose(actual: number | null | undefined, expected: number) {
  if (!close(actual ?? Number.NaN, expected, 1e-9)) throw new Error(`got ${actual}, expected ${expected}`);
}

function ask(orgId: string, input: unknown, currency?: string | null): Promise<ExplorerResult> {
  return runExplorer(v.parse(ExplorerRequestSchema, input), { orgId, now, currency: currency ?? null });
}

/** An explorer request over `start` … `end` (days, at midnight UTC, or full timestamps) by `aggBy`. */
function over(start: string, end: string, aggBy: string, queries: unknown[], limitOverride?: number) {
  const at = (t: string) => (t.length === 10 ? `${t}T00:00:00Z` : t);
  return {
    period: { startDate: at(start), endDate: at(end), aggBy },
    queries,
    ...(limitOverride === undefined ? {} : { limitOverride }),
  };
}

/** The sum of `value` over the rows in `scope`, per `key` of each row. */
function totalsBy(scope: (r: CsvRow) => boolean, key: (r: CsvRow) => string, value: (r: CsvRow) => number) {
  const totals = new Map<string, number>();
  for (const r of rows.filter(scope)) totals.set(key(r), (totals.get(key(r)) ?? 0) + value(r));
  return totals;
}

/** A generated export whose Microsoft rows are billed in CAD (the Azure sample's currency). */
function writeMixed(path: string, months: string[], until: string, prefix: string, cad: boolean) {
  const lines = [FOCUS_HEADER.map((h) => `"${h}"`).join(',')];
  for (const r of generateFocusRows({
    seed: 11,
    months,
    resourcesPerProvider: 3,
    until,
    accountPrefix: prefix,
  })) {
    if (cad && r.ProviderName === 'Microsoft') r.BillingCurrency = 'CAD';
    lines.push(csvLine(r));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

beforeAll(async () => {
  await loadRates(readFileSync(join(FIXTURES, 'eurofxref-hist-2024-09.csv'), 'utf8'));
  await loadRates(readFileSync(join(FIXTURES, 'eurofxref-daily-2024-06-28.xml'), 'utf8'));
  const mixed = join(dir, 'mixed.csv');
  writeMixed(mixed, ['2024-09', '2024-10'], '2024-10-21', `fxm${run}`, true);
  rows = readCsv(mixed);
  expect(new Set(rows.map((r) => r.BillingCurrency))).toEqual(new Set(['USD', 'CAD']));
  await warehouse.ingestFile({ orgId: mixedOrg, path: mixed, sourceName: 'mixed.csv' });
  const usd = join(dir, 'usd.csv');
  writeMixed(usd, ['2024-09', '2024-10'], '2024-10-21', `fxu${run}`, false);
  await warehouse.ingestFile({ orgId: usdOrg, path: usd, sourceName: 'usd.csv' });
  const july = join(dir, 'july.csv');
  writeMixed(july, ['2024-07'], '2024-08-01', `fxj${run}`, false);
  await warehouse.ingestFile({ orgId: julyOrg, path: july, sourceName: 'july.csv' });
}, 120_000);

describe('currency conversion in the query engine', () => {
  it('converts each row at its charge day rate: weekends and a closure day use the last rate before', async () => {
    // 2024-09-14/15 is a weekend and 2024-09-16 has no rate in the fixture: all three use the 13th's.
    const res = await ask(mixedOrg, over('2024-09-12', '2024-09-18', 'Day', [q('a')]), 'USD');
    const out = only(res, 'a');
    expect(out.currency).toBe('USD');
    expect(res.currency).toBe('USD');
    const [series] = out.series;
    expect(series?.points).toHaveLength(7);
    for (const p of series?.points ?? [])
      expectClose(
        p.value,
        sum(
          (r) => day(r) === p.date,
          (r) => inTarget(r, 'USD'),
        ),
      );
    // The CAD rows really were converted (the converted sum differs from the raw one).
    const raw = sum((r) => day(r) === '2024-09-15', cost);
    expect(Math.abs((series?.points[3]?.value ?? 0) - raw)).toBeGreaterThan(1e-6);
    const used = { from: '2024-09-12', to: '2024-09-18' };
    const expected = { from: ['CAD'], to: 'USD', source: 'European Central Bank', rates: used };
    expect(res.conversion).toEqual(expected);
    expect(out.conversion).toEqual(expected);
  });

  it('crosses via EUR into KRW, grouped with top N, both currencies converted', async () => {
    const res = await ask(
      mixedOrg,
      over('2024-09-01', '2024-10-20', 'Month', [q('a', { groupBy: 'provider' })], 2),
      'KRW',
    );
    const out = only(res, 'a');
    const inRange = (r: CsvRow) => day(r) >= '2024-09-01' && day(r) <= '2024-10-20';
    const totals = totalsBy(
      inRange,
      (r) => String(r.ProviderName),
      (r) => inTarget(r, 'KRW'),
    );
    const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]);
    const named = out.series.filter((s) => !s.other);
    expect(named.map((s) => s.group.provider)).toEqual(ranked.slice(0, 2).map(([p]) => p));
    for (const s of named) expectClose(s.total, totals.get(String(s.group.provider))!);
    expectClose(
      out.series.find((s) => s.other)?.total,
      ranked.slice(2).reduce((a, [, x]) => a + x, 0),
    );
    expect(res.conversion?.from).toEqual(['CAD', 'USD']);
    expect(res.conversion?.to).toBe('KRW');
    // Rows run through 2024-10-20 (a Sunday): the last rate applied is Friday the 18th's.
    expect(res.conversion?.rates).toEqual({ from: '2024-08-30', to: '2024-10-18' });
  });

  it("converts weekly and hourly buckets, and two metrics read together, at each row's day rate", async () => {
    // Weeks straddle rate changes (and the closure day), so a rate per bucket would differ.
    const weekly = await ask(
      mixedOrg,
      over('2024-09-02', '2024-09-29', 'Week', [q('a'), q('b', { metricId: 'effective_cost' })]),
      'GBP',
    );
    const effective = (r: CsvRow) =>
      r.BillingCurrency === 'GBP'
        ? num(r.EffectiveCost)
        : (num(r.EffectiveCost) * rateOn(day(r), 'GBP')) / rateOn(day(r), String(r.BillingCurrency));
    const weekOf = (d: string) => {
      const t = Date.parse(`${d}T00:00:00Z`);
      return new Date(t - ((new Date(t).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
    };
    for (const [name, value] of [
      ['a', (r: CsvRow) => inTarget(r, 'GBP')],
      ['b', effective],
    ] as const) {
      const points = only(weekly, name).series[0]?.points ?? [];
      expect(points.map((p) => p.date)).toEqual(['2024-09-02', '2024-09-09', '2024-09-16', '2024-09-23']);
      for (const p of points)
        expectClose(
          p.value,
          sum((r) => weekOf(day(r)) === p.date && day(r) <= '2024-09-29', value),
        );
    }
    expect(only(weekly, 'b').conversion?.to).toBe('GBP');
    const hourly = await ask(
      mixedOrg,
      over('2024-09-13', '2024-09-14T23:00:00Z', 'Hour', [q('a', { groupBy: 'service' })], 3),
      'USD',
    );
    const out = only(hourly, 'a');
    const byService = totalsBy(
      (r) => day(r) === '2024-09-13' || day(r) === '2024-09-14',
      (r) => String(r.ServiceName),
      (r) => inTarget(r, 'USD'),
    );
    for (const s of out.series.filter((x) => !x.other)) {
      expectClose(s.total, byService.get(String(s.group.service))!);
      // Every row starts at midnight: each day's figure sits in its 00:00 hour.
      const nonZero = s.points.filter((p) => (p.value ?? 0) !== 0).map((p) => p.date);
      expect(nonZero.length).toBeGreaterThan(0);
      expect(nonZero.every((d) => d.endsWith('T00:00:00Z'))).toBe(true);
    }
    const grand = [...byService.values()].reduce((a, x) => a + x, 0);
    expectClose(
      out.series.reduce((a, s) => a + (s.total ?? 0), 0),
      grand,
    );
  });

  it('converts a one-currency organisation by day, and forgets that shortcut when another currency arrives', async () => {
    const org = `org_fx_one_${run}`;
    const first = join(dir, 'one-usd.csv');
    writeMixed(first, ['2024-09'], '2024-09-21', `fxo${run}`, false);
    await warehouse.ingestFile({ orgId: org, path: first, sourceName: 'one-usd.csv' });
    const request = over('2024-09-09', '2024-09-20', 'Day', [q('a', { groupBy: 'provider' })]);
    const check = async (raw: CsvRow[]) => {
      const res = await ask(org, request, 'EUR');
      const out = only(res, 'a');
      expect(out.series.length).toBeGreaterThan(1);
      for (const s of out.series)
        for (const p of s.points)
          expectClose(
            p.value,
            raw
              .filter((r) => day(r) === p.date && r.ProviderName === s.group.provider)
              .reduce((a, r) => a + inTarget(r, 'EUR'), 0),
          );
      return res;
    };
    const usdRows = readCsv(first);
    expect((await check(usdRows)).conversion?.from).toEqual(['USD']);
    // A new export of the month, for the same accounts (so it replaces the first), bills its
    // Microsoft rows in CAD: each row now converts from its own currency.
    const second = join(dir, 'one-cad.csv');
    writeMixed(second, ['2024-09'], '2024-09-21', `fxo${run}`, true);
    await warehouse.ingestFile({ orgId: org, path: second, sourceName: 'one-cad.csv' });
    expect((await check(readCsv(second))).conversion?.from).toEqual(['CAD', 'USD']);
  });

  it('answers 422 for rows without a billing currency rather than taking them for the others', async () => {
    const org = `org_fx_nocur_${run}`;
    const path = join(dir, 'nocur.csv');
    writeMixed(path, ['2024-09'], '2024-09-10', `fxn${run}`, false);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const at = FOCUS_HEADER.indexOf('BillingCurrency');
    const cells = lines[1]!.split(',');
    // The generator's cells hold no commas inside quotes before this column (checked here).
    expect(cells[at]).toBe('"USD"');
    cells[at] = '';
    lines[1] = cells.join(',');
    writeFileSync(path, `${lines.join('\n')}\n`);
    await warehouse.ingestFile({ orgId: org, path, sourceName: 'nocur.csv' });
    const asked = ask(org, over('2024-09-01', '2024-09-09', 'Day', [q('a')]), 'EUR');
    await expect(asked).rejects.toThrow(/^No exchange rate for \(none\) to EUR on 2024-09-0\d /);
  });

  it('answers a mixed-currency organisation per billing currency when no currency is asked', async () => {
    const res = await ask(mixedOrg, over('2024-09-01', '2024-09-30', 'Period', [q('a')]));
    const out = only(res, 'a');
    expect(res.currency).toBeNull();
    expect(res.conversion).toBeNull();
    expect(out.currency).toBeNull();
    expect(out.currencies).toEqual(['CAD', 'USD']);
    expect(out.total).toBeNull();
    expect(out.series.map((s) => s.group.BillingCurrency).sort()).toEqual(['CAD', 'USD']);
    for (const s of out.series)
      expectClose(
        s.total,
        sum(
          (r) =>
            r.BillingCurrency === s.group.BillingCurrency && day(r) >= '2024-09-01' && day(r) <= '2024-09-30',
          cost,
        ),
      );
  });

  it('leaves figures already in the asked currency unconverted and states no conversion', async () => {
    const res = await ask(usdOrg, over('2024-09-01', '2024-09-07', 'Period', [q('a')]), 'USD');
    expect(res.currency).toBe('USD');
    expect(res.conversion).toBeNull();
    expect(only(res, 'a').conversion).toBeUndefined();
  });

  it('answers 422 naming the currency and the day when a row has no rate', async () => {
    // The July org's rows are in USD; EUR needs EUR→USD, loaded only for 2024-06-28 (usable until 07-05).
    const asked = ask(julyOrg, over('2024-07-10', '2024-07-12', 'Day', [q('a')]), 'EUR');
    await expect(asked).rejects.toBeInstanceOf(UnprocessableError);
    const error = (await asked.catch((e: unknown) => e)) as UnprocessableError;
    expect(error.status).toBe(422);
    expect(error.body().error).toMatch(/^No exchange rate for USD to EUR on 2024-07-1[012] /);
    // Inside the rate's reach (06-28 + 7 days) the same rows convert: EUR = USD / 1.0705.
    const ok = await ask(julyOrg, over('2024-07-01', '2024-07-05', 'Period', [q('a')]), 'EUR');
    const julyRows = readCsv(join(dir, 'july.csv')).filter(
      (r) => day(r) >= '2024-07-01' && day(r) <= '2024-07-05',
    );
    expectClose(
      only(ok, 'a').total,
      julyRows.reduce((a, r) => a + cost(r) / 1.0705, 0),
    );
    expect(ok.conversion).toEqual({
      from: ['USD'],
      to: 'EUR',
      source: 'European Central Bank',
      rates: { from: '2024-06-28', to: '2024-06-28' },
    });
  });
});
