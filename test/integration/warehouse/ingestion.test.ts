import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeFocusCsv } from '../../../infra/local/demo-data/generator';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { MalformedFileError } from '../../../shared/warehouse/ingest/normalise';
import { close, FOCUS_SAMPLE, ingestFocusSample, num, readCsv, sumBy, tagsOf } from './support';

const dir = mkdtempSync(join(tmpdir(), 'wh-ingest-'));
const warehouse = new DuckDbWarehouse();
const sample = readCsv(FOCUS_SAMPLE);
const sampleLines = readFileSync(FOCUS_SAMPLE, 'utf8').split('\n');

async function monthlyBy(
  orgId: string,
  groupBy: string | string[],
  metricId: 'cost' | 'unblended_cost' = 'cost',
) {
  const rows = await warehouse.costSeries({
    orgId,
    metricId,
    groupBy,
    granularity: 'Month',
    start: '2000-01-01',
    end: '2100-01-01',
  });
  const out = new Map<string, number>();
  for (const r of rows) {
    const key = Object.values(r.group).join('|');
    out.set(key, (out.get(key) ?? 0) + r.value);
  }
  return out;
}

function expectSameSums(actual: Map<string, number>, expected: Map<string, number>) {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [k, v] of expected) {
    if (!close(actual.get(k) ?? Number.NaN, v)) throw new Error(`${k}: got ${actual.get(k)}, expected ${v}`);
  }
}

function write(name: string, text: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('FOCUS ingestion into DuckDB (real focus_sample.csv)', () => {
  beforeAll(async () => {
    await ingestFocusSample(warehouse, 'org_ing_a');
  });

  it('stores every row with its cost: per-provider totals match a plain sum of the CSV', async () => {
    const expected = sumBy(
      sample,
      (r) => r.ProviderName,
      (r) => num(r.BilledCost),
    );
    expectSameSums(await monthlyBy('org_ing_a', 'provider'), expected);
    // 13 credits and adjustments are negative and kept as such.
    expect(sample.filter((r) => num(r.BilledCost) < 0)).toHaveLength(13);
  });

  it('reads timestamps without T or zone as UTC: daily totals match the CSV', async () => {
    const rows = await warehouse.costSeries({
      orgId: 'org_ing_a',
      metricId: 'cost',
      granularity: 'Day',
      start: '2024-09-01',
      end: '2024-10-01',
    });
    const expected = sumBy(
      sample,
      (r) => (r.ChargePeriodStart ?? '').slice(0, 10),
      (r) => num(r.BilledCost),
    );
    expectSameSums(new Map(rows.map((r) => [r.period, r.value])), expected);
  });

  it('parses Tags JSON with doubled quotes, keeps the " org" key beside "org" as exported and treats NULL as no tags', async () => {
    // 23 rows write `" org"`, 21 of them beside `"org"`: two keys, each with its own figures.
    expect(sample.filter((r) => tagsOf(r)[' org'] !== undefined && tagsOf(r).org !== undefined)).toHaveLength(
      21,
    );
    for (const key of ['org', ' org']) {
      const expected = sumBy(
        sample,
        (r) => tagsOf(r)[key] ?? null,
        (r) => num(r.BilledCost),
      );
      expect(expected.size).toBeGreaterThan(0);
      const actual = await monthlyBy('org_ing_a', `tag:${key}`);
      actual.delete('');
      expectSameSums(actual, expected);
    }
    const keys = await withConnection((c) =>
      query(c, `SELECT DISTINCT unnest(map_keys("Tags")) AS k FROM billing WHERE org_id = 'org_ing_a'`),
    );
    const names = keys.map((k) => String(k.k));
    expect(names).toEqual(expect.arrayContaining(['org', ' org']));
    expect(names.sort()).toEqual([...new Set(sample.flatMap((r) => Object.keys(tagsOf(r))))].sort());
    expect(names).toEqual(
      expect.arrayContaining(['application', 'environment', 'business_unit', 'env', 'ms:Department']),
    );
    const [untagged] = await withConnection((c) =>
      query(
        c,
        `SELECT count(*)::INT AS n FROM billing WHERE org_id = 'org_ing_a' AND cardinality("Tags") = 0`,
      ),
    );
    expect(untagged?.n).toBe(sample.filter((r) => Object.keys(tagsOf(r)).length === 0).length);
  });

  it('reads empty strings as NULL, normalises ChargeFrequency casing and drops the non-FOCUS Id column', async () => {
    const oracleEmpty = sample.filter((r) => r.ProviderName === 'Oracle' && r.ResourceName === null).length;
    const rows = await withConnection((c) =>
      query(
        c,
        `SELECT count(*) FILTER (WHERE "ResourceName" IS NULL)::INT AS no_name,
                list(DISTINCT "ChargeFrequency") AS freq,
                count(*) FILTER (WHERE "ContractedCost" IS NULL)::INT AS no_contracted
           FROM billing WHERE org_id = 'org_ing_a' AND "ProviderName" = 'Oracle'`,
      ),
    );
    expect(rows[0]?.no_name).toBe(oracleEmpty);
    expect(rows[0]?.freq).toEqual(['Usage-Based']);
    expect(rows[0]?.no_contracted).toBe(7);
    const cols = await withConnection((c) =>
      query(c, `SELECT column_name FROM duckdb_columns() WHERE table_name = 'billing'`),
    );
    expect(cols.map((c) => c.column_name)).not.toContain('Id');
  });

  it('lists usage metrics as the CSV has them: each unit with its sorted services', async () => {
    const expected = new Map<string, Set<string>>();
    for (const r of sample) {
      if (!r.ConsumedUnit) continue;
      const set = expected.get(r.ConsumedUnit) ?? new Set<string>();
      if (r.ServiceName) set.add(r.ServiceName);
      expected.set(r.ConsumedUnit, set);
    }
    const metrics = await warehouse.usageMetrics('org_ing_a');
    expect(metrics.map((m) => m.consumed_unit)).toEqual([...expected.keys()].sort());
    for (const m of metrics)
      expect(m.service_names).toEqual([...(expected.get(m.consumed_unit) ?? [])].sort());
  });

  it('re-ingesting a month replaces it: no double counting', async () => {
    const before = await monthlyBy('org_ing_a', 'provider');
    await warehouse.ingestFile({ orgId: 'org_ing_a', path: FOCUS_SAMPLE, sourceName: 'again.csv' });
    expectSameSums(await monthlyBy('org_ing_a', 'provider'), before);
  });

  it('rejects a malformed file naming row and column, and changes nothing', async () => {
    const before = await monthlyBy('org_ing_a', 'provider');
    const lines = [...sampleLines];
    lines[37] = (lines[37] as string).replace(/^NULL,[^,]+,/, 'NULL,"12,5x",');
    const bad = write('bad-number.csv', lines.join('\n'));
    const error = await warehouse
      .ingestFile({ orgId: 'org_ing_a', path: bad, sourceName: 'bad.csv' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(MalformedFileError);
    expect(error.message).toBe('Row 37 (line 38), column BilledCost: "12,5x" is not a number');
    expect(error.row).toBe(37);
    expect(error.column).toBe('BilledCost');
    expectSameSums(await monthlyBy('org_ing_a', 'provider'), before);

    const header = (sampleLines[0] as string).replace('"BilledCost",', '"Cost",');
    const missing = write('missing.csv', [header, ...sampleLines.slice(1)].join('\n'));
    await expect(
      warehouse.ingestFile({ orgId: 'org_ing_a', path: missing, sourceName: 'm.csv' }),
    ).rejects.toThrow('Missing required column BilledCost');
    expectSameSums(await monthlyBy('org_ing_a', 'provider'), before);
  });

  it('names bad timestamps and bad Tags JSON with their row', async () => {
    const lines = [...sampleLines];
    lines[5] = (lines[5] as string).replace('"2024-09-01 00:00:00",', '"first of September",');
    const ts = write('bad-ts.csv', lines.join('\n'));
    await expect(warehouse.ingestFile({ orgId: 'org_ing_x', path: ts, sourceName: 't.csv' })).rejects.toThrow(
      /^Row 5 \(line 6\), column BillingPeriod(Start|End): "first of September" is not a date-time$/,
    );
    const tagRow = sampleLines.findIndex((l, i) => i > 0 && l.endsWith('"}"'));
    const tags = [...sampleLines];
    tags[tagRow] = (tags[tagRow] as string).replace(/"\{[\s\S]*\}"$/, '"{""a"": "');
    await expect(
      warehouse.ingestFile({
        orgId: 'org_ing_x',
        path: write('bad-tags.csv', tags.join('\n')),
        sourceName: 'x.csv',
      }),
    ).rejects.toThrow(`Row ${tagRow} (line ${tagRow + 1}), column Tags: "{\\"a\\": " is not a JSON object`);
    expect(await warehouse.billingMonths('org_ing_x')).toEqual([]);
  });

  it('reads gzipped CSV and Parquet to the same totals', async () => {
    const gz = write('sample.csv.gz', gzipSync(readFileSync(FOCUS_SAMPLE)));
    await warehouse.ingestFile({ orgId: 'org_ing_gz', path: gz, sourceName: 'sample.csv.gz' });
    const parquet = join(dir, 'sample.parquet');
    await withConnection((c) =>
      c.run(
        `COPY (SELECT * FROM read_csv('${FOCUS_SAMPLE}', nullstr='NULL')) TO '${parquet}' (FORMAT parquet)`,
      ),
    );
    await warehouse.ingestFile({ orgId: 'org_ing_pq', path: parquet, sourceName: 'sample.parquet' });
    const expected = sumBy(
      sample,
      (r) => r.ProviderName,
      (r) => num(r.BilledCost),
    );
    expectSameSums(await monthlyBy('org_ing_gz', 'provider'), expected);
    expectSameSums(await monthlyBy('org_ing_pq', 'provider'), expected);
    expectSameSums(await monthlyBy('org_ing_pq', 'tag:org'), await monthlyBy('org_ing_a', 'tag:org'));
  });

  it('handles T/zone/minute timestamps, provider spellings, braces-less tags and x_ columns', async () => {
    const csv = [
      'BilledCost,BillingCurrency,ChargePeriodStart,ProviderName,ServiceName,Tags,x_UnblendedCost,x_Custom',
      '1.123456789012,USD,2024-09-02T10:00:00Z,Amazon Web Services,EC2,"{""team"": ""a""}",2.5,foo',
      '2,USD,2024-09-02T23:30:00-02:00,azure,VM,"""team"": ""b""",NULL,',
      '4,USD,2024-09-03T05:00Z,OCI,COMPUTE,NULL,,bar',
      '8,USD,2024-09-03,GCP,BigQuery,{},,',
    ].join('\n');
    await warehouse.ingestFile({ orgId: 'org_ing_q', path: write('quirks.csv', csv), sourceName: 'q.csv' });
    expectSameSums(
      await monthlyBy('org_ing_q', 'provider'),
      new Map([
        ['AWS', 1.123456789012],
        ['Microsoft', 2],
        ['Oracle', 4],
        ['Google Cloud', 8],
      ]),
    );
    const days = await warehouse.costSeries({
      orgId: 'org_ing_q',
      metricId: 'cost',
      granularity: 'Day',
      start: '2024-09-01',
      end: '2024-10-01',
    });
    // 23:30 at -02:00 is 01:30 UTC on the 3rd.
    expect(days).toEqual([
      { period: '2024-09-02', group: {}, value: 1.123456789012 },
      { period: '2024-09-03', group: {}, value: 14 },
    ]);
    expectSameSums(
      await monthlyBy('org_ing_q', 'tag:team'),
      new Map([
        ['a', 1.123456789012],
        ['b', 2],
        ['', 12],
      ]),
    );
    // unblended_cost uses x_UnblendedCost where present, BilledCost elsewhere.
    const unblended = await monthlyBy('org_ing_q', 'provider', 'unblended_cost');
    expect(unblended.get('AWS')).toBe(2.5);
    expect(unblended.get('Microsoft')).toBe(2);
    expectSameSums(
      await monthlyBy('org_ing_q', 'x_Custom'),
      new Map([
        ['foo', 1.123456789012],
        ['bar', 4],
        ['', 10],
      ]),
    );
  });

  it('reads padded numbers and timestamps, and blank cells as NULL', async () => {
    const csv = [
      'BilledCost,BillingCurrency,ChargePeriodStart,ProviderName,ServiceName,ListCost',
      ' 1.5 ,USD, 2024-09-02 10:00:00 ,AWS,EC2,   ',
      '2.5,USD,2024-09-02,AWS,EC2,null',
    ].join('\n');
    await warehouse.ingestFile({ orgId: 'org_ing_ws', path: write('padded.csv', csv), sourceName: 'p.csv' });
    const days = await warehouse.costSeries({
      orgId: 'org_ing_ws',
      metricId: 'cost',
      granularity: 'Day',
      start: '2024-09-01',
      end: '2024-10-01',
    });
    expect(days).toEqual([{ period: '2024-09-02', group: {}, value: 4 }]);
    const list = await warehouse.costSeries({
      orgId: 'org_ing_ws',
      metricId: 'list_cost',
      granularity: 'Day',
      start: '2024-09-01',
      end: '2024-10-01',
    });
    expect(list).toEqual([{ period: '2024-09-02', group: {}, value: 0 }]);
  });

  it("never returns another organisation's rows", async () => {
    const gen = join(dir, 'gen.csv');
    await writeFocusCsv(gen, { seed: 3, months: ['2024-09'], resourcesPerProvider: 5, daysPerMonth: 3 });
    await warehouse.ingestFile({ orgId: 'org_ing_b', path: gen, sourceName: 'gen.csv' });
    const a = await monthlyBy('org_ing_a', 'sub_account');
    const b = await monthlyBy('org_ing_b', 'sub_account');
    const genRows = readCsv(gen);
    expectSameSums(
      b,
      sumBy(
        genRows,
        (r) => r.SubAccountId ?? '',
        (r) => num(r.BilledCost),
      ),
    );
    expect([...a.keys()].some((k) => b.has(k))).toBe(false);
    expect(await warehouse.usageMetrics('org_ing_none')).toEqual([]);
  });
});
