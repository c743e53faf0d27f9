import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeNativeExport } from '../../../infra/local/demo-data/native-generator';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { suiteFolder } from '../../support/suite-folder';
import { close, num, parseCsv, readCsv, SAMPLES } from './support';

/**
 * The FOCUS columns the converters give beyond costs (issue 31): ChargeClass, ServiceCategory,
 * ContractedCost (OCI), BillingAccountName and BillingPeriodEnd (Google Cloud, OCI). Expected
 * values come from the raw rows read here and from the provider documentation's rules written out
 * in the test (docs/warehouse.md, "FOCUS columns the native formats do not name"), never from the
 * converter's SQL.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const folder = suiteFolder('native-focus-');

async function rows(orgId: string, select: string, group = '', where = 'TRUE') {
  const tail = group ? ` GROUP BY ${group}` : '';
  return withConnection((c) =>
    query(c, `SELECT ${select} FROM billing WHERE org_id = $1 AND (${where})${tail}`, [orgId]),
  );
}

async function ingest(path: string): Promise<string> {
  const orgId = `org_nfc_${run}_${path.split('/').at(-1)?.replace(/\W/g, '_')}`;
  await warehouse.ingestFile({ orgId, path, sourceName: 'x' });
  return orgId;
}

function sumsBy<T>(items: T[], key: (t: T) => string, value: (t: T) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of items) out.set(key(t), (out.get(key(t)) ?? 0) + value(t));
  return out;
}

function expectSums(actual: Record<string, unknown>[], expected: Map<string, number>) {
  const got = new Map(actual.map((r) => [String(r.k), Number(r.c)]));
  expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [k, v] of expected) expect(close(got.get(k) ?? Number.NaN, v, 1e-9)).toBe(true);
}

describe('OCI sample', () => {
  const raw = readCsv(join(SAMPLES, 'oci_cost_report_sample.csv'));
  let org = '';
  beforeAll(async () => {
    org = await ingest(join(SAMPLES, 'oci_cost_report_sample.csv'));
  });

  it('ServiceCategory per OCI service (product/service), cost per category as the raw rows give it', async () => {
    // OCI's own grouping of these services in its price list.
    const category: Record<string, string> = {
      TELEMETRY: 'Management and Governance',
      COMPUTE: 'Compute',
      DATABASE: 'Databases',
      MYSQL: 'Databases',
      NETWORK: 'Networking',
      BLOCK_STORAGE: 'Storage',
      OBJECTSTORE: 'Storage',
      ORACLE_STREAMING_SERVICE: 'Analytics',
    };
    const expected = sumsBy(
      raw,
      (r) => category[String(r['product/service'])] ?? 'Other',
      (r) => num(r['cost/myCost']),
    );
    expectSums(await rows(org, `"ServiceCategory" AS k, sum("BilledCost") AS c`, '1'), expected);
  });

  it('BillingPeriodEnd is the first day of the next month; BillingAccountName is present and empty', async () => {
    const months = new Set(raw.map((r) => String(r['lineItem/intervalUsageStart']).slice(0, 7)));
    expect([...months]).toEqual(['2023-11']);
    const got = await rows(
      org,
      `strftime("BillingPeriodEnd", '%Y-%m-%d') AS e, count("BillingAccountName")::INT AS names, count(*)::INT AS n`,
      '1',
    );
    expect(got).toEqual([{ e: '2023-12-01', names: 0, n: raw.length }]);
  });

  it('ContractedCost is unit price × billed quantity; ChargeClass marks the lines the report flags as corrections', async () => {
    const contracted = raw.reduce(
      (s, r) =>
        s +
        (r['cost/unitPrice'] !== null && r['usage/billedQuantity'] !== null
          ? num(r['cost/unitPrice']) * num(r['usage/billedQuantity'])
          : num(r['cost/myCost'])),
      0,
    );
    const corrections = raw.filter((r) => r['lineItem/isCorrection']?.toLowerCase() === 'true').length;
    const [got] = await rows(
      org,
      `sum("ContractedCost") AS c, count(*) FILTER (WHERE "ChargeClass" = 'Correction')::INT AS corrections,
       count(*) FILTER (WHERE "ChargeClass" IS NOT NULL AND "ChargeClass" <> 'Correction')::INT AS others`,
    );
    expect(close(Number(got?.c), contracted, 1e-9)).toBe(true);
    expect(got).toMatchObject({ corrections, others: 0 });
  });
});

describe('AWS CUR 1.0 built here', () => {
  const header = [
    'identity/LineItemId',
    'bill/PayerAccountId',
    'bill/BillingPeriodStartDate',
    'bill/BillingPeriodEndDate',
    'lineItem/UsageAccountId',
    'lineItem/LineItemType',
    'lineItem/UsageStartDate',
    'lineItem/UsageEndDate',
    'lineItem/ProductCode',
    'lineItem/UsageAmount',
    'lineItem/CurrencyCode',
    'lineItem/UnblendedCost',
  ];
  /** A line of the March 2024 bill of payer 111, usage account 222, in USD. */
  const line = (
    id: string,
    type: string,
    start: string,
    end: string,
    code: string,
    amount: string,
    cost: string,
  ) => [
    id,
    '111',
    '2024-03-01T00:00:00Z',
    '2024-04-01T00:00:00Z',
    '222',
    type,
    start,
    end,
    code,
    amount,
    'USD',
    cost,
  ];
  const lines = [
    line('a1', 'Usage', '2024-03-02T00:00:00Z', '2024-03-02T01:00:00Z', 'AmazonEC2', '1', '1.25'),
    line('a2', 'Usage', '2024-03-02T00:00:00Z', '2024-03-02T01:00:00Z', 'AmazonS3', '5', '0.40'),
    // Usage of February billed again (corrected) in the March bill.
    line('a3', 'Credit', '2024-02-27T00:00:00Z', '2024-02-28T00:00:00Z', 'AmazonEC2', '0', '-0.75'),
    line('a4', 'Usage', '2024-03-03T00:00:00Z', '2024-03-03T01:00:00Z', 'SomeNewService', '2', '3.10'),
  ];
  let org = '';
  let raw: ReturnType<typeof parseCsv> = [];
  beforeAll(async () => {
    const path = folder.file('cur1.csv');
    writeFileSync(path, [header, ...lines].map((l) => l.join(',')).join('\n'));
    raw = parseCsv(readFileSync(path, 'utf8'));
    org = await ingest(path);
  });

  it('ChargeClass: "Correction" for a charge of a month before its billing period, else null', async () => {
    const expected = sumsBy(
      raw,
      (r) =>
        String(r['lineItem/UsageStartDate']).slice(0, 7) <
        String(r['bill/BillingPeriodStartDate']).slice(0, 7)
          ? 'Correction'
          : 'null',
      (r) => num(r['lineItem/UnblendedCost']),
    );
    expect(expected.get('Correction')).toBe(-0.75);
    expectSums(
      await rows(org, `coalesce("ChargeClass", 'null') AS k, sum("BilledCost") AS c`, '1'),
      expected,
    );
  });

  it('ServiceCategory from the product code: a code the table does not know is "Other"', async () => {
    const category: Record<string, string> = { AmazonEC2: 'Compute', AmazonS3: 'Storage' };
    const expected = sumsBy(
      raw,
      (r) => category[String(r['lineItem/ProductCode'])] ?? 'Other',
      (r) => num(r['lineItem/UnblendedCost']),
    );
    expectSums(await rows(org, `"ServiceCategory" AS k, sum("BilledCost") AS c`, '1'), expected);
  });
});

describe('Google Cloud generated', () => {
  it('BillingPeriodEnd follows invoice.month; no row without a ServiceCategory; unit price × pricing quantity = cost', async () => {
    const path = folder.file('gcp.csv');
    await writeNativeExport(path, 'gcp-csv', {
      seed: 5,
      months: ['2025-02'],
      resourcesPerProvider: 3,
      daysPerMonth: 2,
    });
    const raw = readCsv(path);
    const org = await ingest(path);
    const months = [...new Set(raw.map((r) => String(r['invoice.month'])))];
    expect(months).toEqual(['202502']);
    const got = await rows(
      org,
      `strftime("BillingPeriodEnd", '%Y-%m-%d') AS e, count("BillingAccountName")::INT AS names,
       count(*) FILTER (WHERE "ServiceCategory" IS NULL)::INT AS uncategorised`,
      '1',
    );
    expect(got).toEqual([{ e: '2025-03-01', names: 0, uncategorised: 0 }]);
    const usage = raw.filter((r) => num(r['usage.amount_in_pricing_units']) > 0);
    const [priced] = await rows(
      org,
      `count(*)::INT AS n, max(abs("ContractedUnitPrice" * "PricingQuantity" - "ContractedCost")) AS gap`,
      '',
      `"ChargeCategory" IN ('Usage', 'Purchase') AND "ContractedUnitPrice" IS NOT NULL`,
    );
    expect(priced?.n).toBeGreaterThanOrEqual(usage.length);
    expect(Number(priced?.gap)).toBeLessThan(1e-9);
  });
});
