import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type NativeKind, writeNativeExport } from '../../../infra/local/demo-data/native-generator';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { IngestRejected } from '../../../shared/warehouse/ingest/errors';
import { MalformedFileError } from '../../../shared/warehouse/ingest/normalise';
import { suiteFolder } from '../../support/suite-folder';
import {
  type CsvRow,
  close,
  dailyByService,
  expectSameSums,
  num,
  parseCsv,
  readCsv,
  SAMPLES,
} from './support';

/**
 * Provider-native exports converted to FOCUS on ingestion. Every expected figure is computed here
 * from the raw file (a plain CSV/JSON parse in JavaScript, the provider's own cost column), never
 * by the converter's SQL; the actual figures come back through the warehouse port as a user sees them.
 */
const warehouse = new DuckDbWarehouse();
const folder = suiteFolder('native-');

/** One raw line as the test reads it: its day, service, billed amount and charge-category hint. */
interface RawCharge {
  day: string;
  service: string;
  cost: number;
  currency: string;
}

function sums(charges: RawCharge[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of charges) {
    const key = `${c.day}|${c.service}`;
    out.set(key, (out.get(key) ?? 0) + c.cost);
  }
  return out;
}

const isoDay = (t: string | null | undefined) => (t ?? '').slice(0, 10);
const mdyDay = (t: string | null | undefined) => {
  const [m, d, y] = (t ?? '').split('/');
  return `${y}-${m?.padStart(2, '0')}-${d?.padStart(2, '0')}`;
};

/** CUR 1.0 and 2.0: BilledCost is the net unblended cost where the file has it, else the unblended cost. */
function curCharges(rows: CsvRow[]): RawCharge[] {
  return rows.map((r) => {
    const snake = 'line_item_unblended_cost' in r;
    const product = snake && r.product ? (JSON.parse(r.product) as { product_name?: string }) : {};
    const net = snake ? r.line_item_net_unblended_cost : r['lineItem/NetUnblendedCost'];
    return {
      day: isoDay(snake ? r.line_item_usage_start_date : r['lineItem/UsageStartDate']),
      service: String(
        (snake ? (r.product_product_name ?? product.product_name) : r['product/ProductName']) ??
          (snake ? r.line_item_product_code : r['lineItem/ProductCode']),
      ),
      cost:
        net !== null && net !== undefined
          ? num(net)
          : num(snake ? r.line_item_unblended_cost : r['lineItem/UnblendedCost']),
      currency: String(snake ? r.line_item_currency_code : r['lineItem/CurrencyCode']),
    };
  });
}

function azureCharges(rows: CsvRow[]): RawCharge[] {
  return rows.map((r) => ({
    day: mdyDay(r.Date),
    service: String(r.MeterCategory),
    cost: num(r.CostInBillingCurrency),
    currency: String(r.BillingCurrencyCode),
  }));
}

function ociCharges(rows: CsvRow[]): RawCharge[] {
  return rows.map((r) => ({
    day: isoDay(r['lineItem/intervalUsageStart']),
    service: String(r['product/service']),
    cost: num(r['cost/myCost']),
    currency: String(r['cost/currencyCode']),
  }));
}

interface GcpRaw {
  day: string;
  service: string;
  cost: number;
  credits: number[];
  currency: string;
  labels: Record<string, string>;
}

function gcpFromCsv(rows: CsvRow[]): GcpRaw[] {
  return rows.map((r) => ({
    day: isoDay(r.usage_start_time),
    service: String(r['service.description']),
    cost: num(r.cost),
    credits: (JSON.parse(r.credits ?? '[]') as { amount: number }[]).map((c) => Number(c.amount)),
    currency: String(r.currency),
    labels: Object.fromEntries(
      (JSON.parse(r.labels ?? '[]') as { key: string; value: string }[]).map((l) => [l.key, l.value]),
    ),
  }));
}

function gcpFromJsonLines(text: string): GcpRaw[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const r = JSON.parse(l) as {
        usage_start_time: string;
        service: { description: string };
        cost: number;
        currency: string;
        credits?: { amount: number }[];
        labels?: { key: string; value: string }[];
      };
      return {
        day: isoDay(r.usage_start_time),
        service: r.service.description,
        cost: Number(r.cost),
        credits: (r.credits ?? []).map((c) => Number(c.amount)),
        currency: r.currency,
        labels: Object.fromEntries((r.labels ?? []).map((l) => [l.key, l.value])),
      };
    });
}

/** GCP: the charge line keeps `cost`; each credit is a line of its own. */
function gcpCharges(rows: GcpRaw[]): RawCharge[] {
  return rows.flatMap((r) => [
    { day: r.day, service: r.service, cost: r.cost, currency: r.currency },
    ...r.credits.map((amount) => ({ day: r.day, service: r.service, cost: amount, currency: r.currency })),
  ]);
}

/** `where` may end in `GROUP BY …`. */
async function billingRows(orgId: string, select: string, where = 'TRUE', params: string[] = []) {
  const [cond, group] = where.split(' GROUP BY ');
  const tail = group ? ` GROUP BY ${group}` : '';
  return withConnection((c) =>
    query(c, `SELECT ${select} FROM billing WHERE org_id = $1 AND (${cond})${tail}`, [orgId, ...params]),
  );
}

/**
 * The stored BilledCost per value of tag `key` (over the rows `where` also keeps) is `expected`,
 * the sums computed in the test from the raw file: the same values, each within 1e-9.
 */
async function expectTagSums(orgId: string, key: string, expected: Map<string, number>, where = 'TRUE') {
  const actual = await billingRows(
    orgId,
    `"Tags"[$2] AS v, sum("BilledCost") AS c`,
    `"Tags"[$2] IS NOT NULL AND (${where}) GROUP BY 1`,
    [key],
  );
  expect(actual.length).toBe(expected.size);
  for (const r of actual)
    expect(close(Number(r.c), expected.get(String(r.v)) ?? Number.NaN, 1e-9)).toBe(true);
}

async function ingest(orgId: string, path: string) {
  return warehouse.ingestFile({ orgId, path, sourceName: path.split('/').at(-1) ?? path });
}

const GENERATED = { seed: 17, months: ['2024-07'], daysPerMonth: 6, resourcesPerProvider: 12 };

async function generated(kind: NativeKind, name: string): Promise<string> {
  const path = folder.file(name);
  const lines = await writeNativeExport(path, kind, GENERATED);
  expect(lines).toBeGreaterThan(100);
  return path;
}

describe('the real provider samples (test/fixtures/billing)', () => {
  const cases = [
    {
      format: 'AWS CUR 1.0',
      org: 'org_nat_cur1',
      file: 'aws_cur_sample-anonymous-aws-export-dataset.csv',
      charges: () => curCharges(readCsv(join(SAMPLES, 'aws_cur_sample-anonymous-aws-export-dataset.csv'))),
    },
    {
      format: 'Azure EA',
      org: 'org_nat_azure',
      file: 'azure_ea_sample-anonymous-ea-export-dataset.csv',
      charges: () => azureCharges(readCsv(join(SAMPLES, 'azure_ea_sample-anonymous-ea-export-dataset.csv'))),
    },
    {
      format: 'OCI',
      org: 'org_nat_oci',
      file: 'oci_cost_report_sample.csv',
      charges: () => ociCharges(readCsv(join(SAMPLES, 'oci_cost_report_sample.csv'))),
    },
  ];

  it.each(cases)(
    '$format: every row ingested, BilledCost per day and service equals the raw cost column',
    async (c) => {
      const charges = c.charges();
      const result = await ingest(c.org, join(SAMPLES, c.file));
      expect(result.rows).toBe(charges.length);
      expectSameSums(await dailyByService(warehouse, c.org), sums(charges));
      const currencies = await billingRows(c.org, 'DISTINCT "BillingCurrency" AS c');
      expect(currencies.map((r) => r.c)).toEqual([...new Set(charges.map((r) => r.currency))]);
    },
  );

  it('AWS CUR 1.0: line item types become charge categories; list cost is the public on-demand cost', async () => {
    const rows = readCsv(join(SAMPLES, 'aws_cur_sample-anonymous-aws-export-dataset.csv'));
    const byCategory = await billingRows(
      'org_nat_cur1',
      `"ChargeCategory" AS k, count(*)::INT AS n, sum("ListCost") AS list, list(DISTINCT "ProviderName") AS p`,
      'TRUE GROUP BY 1',
    );
    const expected = { Tax: 0, Usage: 0 };
    for (const r of rows) expected[r['lineItem/LineItemType'] as 'Tax' | 'Usage']++;
    expect(Object.fromEntries(byCategory.map((r) => [r.k, r.n]))).toEqual(expected);
    const list = rows.reduce((s, r) => s + num(r['pricing/publicOnDemandCost']), 0);
    expect(
      close(
        byCategory.reduce((s, r) => s + Number(r.list), 0),
        list,
        1e-9,
      ),
    ).toBe(true);
    expect(byCategory.every((r) => JSON.stringify(r.p) === '["AWS"]')).toBe(true);
  });

  it('Azure EA: CAD kept per row, M/D/YYYY dates, tags without braces read as tags', async () => {
    const rows = readCsv(join(SAMPLES, 'azure_ea_sample-anonymous-ea-export-dataset.csv'));
    const [row] = await billingRows(
      'org_nat_azure',
      `min("ChargePeriodStart")::VARCHAR AS s, max("ChargePeriodEnd")::VARCHAR AS e, min(billing_month) AS m,
       count(*) FILTER (WHERE "Tags"['tagA'] = 'valueA')::INT AS tagged, list(DISTINCT "ProviderName") AS p`,
    );
    expect(row).toEqual({
      s: '2023-09-02 00:00:00',
      e: '2023-09-03 00:00:00',
      m: '2023-09',
      tagged: rows.filter((r) => (r.Tags ?? '').includes('"tagA": "valueA"')).length,
      p: ['Microsoft'],
    });
  });

  it('OCI: tags/<namespace>.<key> columns become tags keyed <namespace>.<key>', async () => {
    const rows = readCsv(join(SAMPLES, 'oci_cost_report_sample.csv'));
    const key = 'Oracle-Tags.CreatedBy';
    const expected = new Map<string, number>();
    for (const r of rows) {
      const v = r[`tags/${key}`];
      if (v) expected.set(v, (expected.get(v) ?? 0) + num(r['cost/myCost']));
    }
    expect(expected.size).toBeGreaterThan(1);
    await expectTagSums('org_nat_oci', key, expected);
  });

  it('OCI: tag columns keep their keys as the header writes them (trailing space, case), each with its own figures', async () => {
    const lines = readFileSync(join(SAMPLES, 'oci_cost_report_sample.csv'), 'utf8')
      .replace(/\r?\n$/, '')
      .split(/\r?\n/);
    const extra = ['tags/ns.team', 'tags/ns.team ', 'tags/ns.Team'];
    const cells = (i: number) => [i % 2 ? 'a' : '', i % 3 ? '' : 'b', i % 5 ? '' : 'c'];
    const text = `${[
      `${lines[0]},${extra.map((h) => `"${h}"`).join(',')}`,
      ...lines.slice(1).map((l, i) => `${l},${cells(i).join(',')}`),
    ].join('\n')}\n`;
    const dir = await mkdtemp(join(tmpdir(), 'oci-keys-'));
    const path = join(dir, 'oci-keys.csv');
    writeFileSync(path, text);
    const rows = readCsv(path);
    await ingest('org_nat_oci_keys', path);
    for (const header of extra) {
      const key = header.slice('tags/'.length);
      const expected = new Map<string, number>();
      for (const r of rows) {
        const v = r[header];
        if (v) expected.set(v, (expected.get(v) ?? 0) + num(r['cost/myCost']));
      }
      expect(expected.size).toBe(1);
      await expectTagSums('org_nat_oci_keys', key, expected);
    }
  });
});

describe('generated exports (formats without a real sample)', () => {
  it('CUR 2.0: totals per day and service, net cost as BilledCost, Savings Plan effective cost, tags without user_', async () => {
    const path = await generated('cur2', 'cur2.csv');
    const raw = readCsv(path);
    await ingest('org_nat_cur2', path);
    expectSameSums(await dailyByService(warehouse, 'org_nat_cur2'), sums(curCharges(raw)));
    // EffectiveCost: the Savings Plan effective cost on covered usage, the net cost elsewhere.
    const effective = raw.map((r) => ({
      day: isoDay(r.line_item_usage_start_date),
      service: String(JSON.parse(r.product ?? '{}').product_name),
      cost:
        r.line_item_line_item_type === 'SavingsPlanCoveredUsage'
          ? num(r.savings_plan_net_savings_plan_effective_cost)
          : num(r.line_item_net_unblended_cost),
      currency: 'USD',
    }));
    expect(raw.some((r) => r.line_item_line_item_type === 'SavingsPlanCoveredUsage')).toBe(true);
    expectSameSums(await dailyByService(warehouse, 'org_nat_cur2', 'effective_cost'), sums(effective));
    const team = new Map<string, number>();
    for (const r of raw) {
      const t = r.resource_tags
        ? (JSON.parse(r.resource_tags) as Record<string, string>).user_team
        : undefined;
      if (t) team.set(t, (team.get(t) ?? 0) + num(r.line_item_net_unblended_cost));
    }
    await expectTagSums('org_nat_cur2', 'team', team);
  });

  it('CUR 2.0 as Parquet (maps for product and tags) gives the same totals as its CSV', async () => {
    const csv = folder.file('cur2.csv');
    const parquet = folder.file('cur2.parquet');
    await withConnection(async (c) => {
      await c.run(
        `COPY (SELECT * REPLACE (CAST(resource_tags::JSON AS MAP(VARCHAR, VARCHAR)) AS resource_tags,
                                 CAST(product::JSON AS MAP(VARCHAR, VARCHAR)) AS product)
               FROM read_csv('${csv}', all_varchar = true)) TO '${parquet}' (FORMAT parquet)`,
      );
    });
    await ingest('org_nat_cur2_pq', parquet);
    expectSameSums(await dailyByService(warehouse, 'org_nat_cur2_pq'), sums(curCharges(readCsv(csv))));
  });

  it('CUR 1.0 generated: resourceTags/user:… columns into Tags, covered usage billed at on-demand cost', async () => {
    const path = await generated('cur1', 'cur1.csv');
    const raw = readCsv(path);
    await ingest('org_nat_cur1_gen', path);
    expectSameSums(await dailyByService(warehouse, 'org_nat_cur1_gen'), sums(curCharges(raw)));
    const env = new Map<string, number>();
    for (const r of raw) {
      const v = r['resourceTags/user:environment'];
      if (v) env.set(v, (env.get(v) ?? 0) + num(r['lineItem/UnblendedCost']));
    }
    await expectTagSums('org_nat_cur1_gen', 'environment', env);
  });

  it.each([
    ['gcp-csv', 'gcp.csv', (p: string) => gcpFromCsv(readCsv(p))],
    ['gcp-jsonl', 'gcp.jsonl', (p: string) => gcpFromJsonLines(readFileSync(p, 'utf8'))],
  ] as const)(
    'Google Cloud %s: cost per charge and each nested credit as a Credit line, labels as tags',
    async (kind, name, parse) => {
      const path = await generated(kind, name);
      const raw = parse(path);
      const org = `org_nat_${kind.replace('-', '_')}`;
      const result = await ingest(org, path);
      const credits = raw.flatMap((r) => r.credits);
      expect(credits.length).toBeGreaterThan(0);
      expect(result.rows).toBe(raw.length + credits.length);
      expectSameSums(await dailyByService(warehouse, org), sums(gcpCharges(raw)));
      const [split] = await billingRows(
        org,
        `sum("BilledCost") FILTER (WHERE "ChargeCategory" = 'Credit') AS credit,
       sum("BilledCost") FILTER (WHERE "ChargeCategory" <> 'Credit') AS charge`,
      );
      expect(
        close(
          Number(split?.credit),
          credits.reduce((s, a) => s + a, 0),
          1e-9,
        ),
      ).toBe(true);
      expect(
        close(
          Number(split?.charge),
          raw.reduce((s, r) => s + r.cost, 0),
          1e-9,
        ),
      ).toBe(true);
      const team = new Map<string, number>();
      for (const r of raw)
        if (r.labels.team) team.set(r.labels.team, (team.get(r.labels.team) ?? 0) + r.cost);
      await expectTagSums(org, 'team', team, `"ChargeCategory" <> 'Credit'`);
    },
  );

  it('Google Cloud JSON lines gzipped: the same totals; a credits cell that is not a list is refused', async () => {
    const plain = await generated('gcp-jsonl', 'gcp-plain.jsonl');
    const gz = folder.file('gcp.jsonl.gz');
    writeFileSync(gz, gzipSync(readFileSync(plain)));
    await ingest('org_nat_gcp_gz', gz);
    expectSameSums(
      await dailyByService(warehouse, 'org_nat_gcp_gz'),
      sums(gcpCharges(gcpFromJsonLines(readFileSync(plain, 'utf8')))),
    );
    const bad = folder.file('gcp-bad.jsonl');
    const lines = readFileSync(plain, 'utf8').split('\n');
    const second = JSON.parse(lines[1] ?? '{}') as Record<string, unknown>;
    second.credits = { amount: -1 };
    lines[1] = JSON.stringify(second);
    writeFileSync(bad, lines.join('\n'));
    const error = await ingest('org_nat_gcp_bad', bad).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(MalformedFileError);
    // The row counts converted rows (each charge, then its credits): documented in docs/warehouse.md.
    expect(error?.message).toBe('Row 3 (line 4), column BilledCost: "{\\"amount\\":-1}" is not a number');
  });

  it('Azure generated in EUR with a BOM: totals per day and service, EUR on every row', async () => {
    const path = await generated('azure', 'azure.csv');
    expect(readFileSync(path).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const raw = readCsv(path);
    await ingest('org_nat_azure_gen', path);
    expectSameSums(await dailyByService(warehouse, 'org_nat_azure_gen'), sums(azureCharges(raw)));
    const currencies = await billingRows('org_nat_azure_gen', 'DISTINCT "BillingCurrency" AS c');
    expect(currencies).toEqual([{ c: 'EUR' }]);
  });
});

describe('CUR line item types', () => {
  // One line of each type, written by hand: type → cost, SP/RI columns, and what FOCUS calls it.
  const lines: [string, string, string, string, string, string][] = [
    // type, unblended, net unblended, sp effective, ri effective, expected category
    ['Usage', '10.5', '9.5', '', '', 'Usage'],
    ['SavingsPlanCoveredUsage', '4', '4', '2.75', '', 'Usage'],
    ['SavingsPlanNegation', '-4', '-4', '', '', 'Usage'],
    ['SavingsPlanRecurringFee', '3', '3', '', '', 'Purchase'],
    ['DiscountedUsage', '0', '0', '', '1.25', 'Usage'],
    ['RIFee', '7', '7', '', '', 'Purchase'],
    ['Fee', '100', '100', '', '', 'Purchase'],
    ['Tax', '1.7', '1.7', '', '', 'Tax'],
    ['Credit', '-5', '-5', '', '', 'Credit'],
    ['Refund', '-2.5', '-2.5', '', '', 'Adjustment'],
    ['EdpDiscount', '-0.75', '-0.75', '', '', 'Credit'],
    ['BundledDiscount', '-0.25', '-0.25', '', '', 'Credit'],
  ];
  const header =
    'line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,line_item_product_code,line_item_currency_code,line_item_unblended_cost,line_item_net_unblended_cost,savings_plan_savings_plan_effective_cost,savings_plan_net_savings_plan_effective_cost,reservation_effective_cost,savings_plan_total_commitment_to_date,savings_plan_used_commitment,reservation_unused_amortized_upfront_fee_for_billing_period,reservation_unused_recurring_fee,bill_billing_period_start_date';
  const csv = [
    header,
    ...lines.map(
      ([type, unblended, net, sp, ri]) =>
        `${type},2024-05-03T00:00:00Z,2024-05-04T00:00:00Z,AmazonEC2,USD,${unblended},${net},${sp},${sp},${ri},${type === 'SavingsPlanRecurringFee' ? '3' : ''},${type === 'SavingsPlanRecurringFee' ? '2.5' : ''},${type === 'RIFee' ? '0.5' : ''},${type === 'RIFee' ? '0.25' : ''},2024-05-01T00:00:00Z`,
    ),
  ].join('\n');

  it('maps each type to a FOCUS charge category and amortises commitments in EffectiveCost', async () => {
    const path = folder.file('cur2-types.csv');
    writeFileSync(path, csv);
    await ingest('org_nat_types', path);
    const rows = await billingRows(
      'org_nat_types',
      `x_columns['x_LineItemType'] AS t, "ChargeCategory" AS k, "BilledCost" AS b, "EffectiveCost" AS e, x_unblended_cost AS u`,
    );
    const got = Object.fromEntries(rows.map((r) => [String(r.t), r]));
    for (const [type, unblended, net, , , category] of lines) {
      expect({ type, k: got[type]?.k, b: got[type]?.b, u: got[type]?.u }).toEqual({
        type,
        k: category,
        b: Number(net),
        u: Number(unblended),
      });
    }
    // Amortised: covered usage at its Savings Plan rate, negation and upfront fee at 0, the
    // recurring fee at its unused commitment, RI usage at its effective cost, the RI fee at its unused part.
    expect(got.SavingsPlanCoveredUsage?.e).toBe(2.75);
    expect(got.SavingsPlanNegation?.e).toBe(0);
    expect(got.SavingsPlanRecurringFee?.e).toBe(0.5);
    expect(got.DiscountedUsage?.e).toBe(1.25);
    expect(got.RIFee?.e).toBe(0.75);
    expect(got.Usage?.e).toBe(9.5);
    const raw = parseCsv(csv);
    expect(rows.reduce((s, r) => s + Number(r.b), 0)).toBeCloseTo(
      raw.reduce((s, r) => s + num(r.line_item_net_unblended_cost), 0),
      9,
    );
  });
});

describe('files that are not a billing export', () => {
  const write = (name: string, data: string | Buffer) => {
    const path = folder.file(name);
    writeFileSync(path, data);
    return path;
  };

  async function rejection(path: string): Promise<Error> {
    const error = await ingest('org_nat_reject', path).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    if (!error) throw new Error(`${path} was ingested`);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain(folder.path());
    expect(error.message).not.toContain(tmpdir());
    return error;
  }

  it('an unknown CSV is refused naming the accepted formats', async () => {
    const error = await rejection(write('other.csv', 'date,amount,note\n2024-01-01,3.5,lunch\n'));
    expect(error).toBeInstanceOf(IngestRejected);
    for (const name of ['FOCUS', 'CUR 1.0', 'CUR 2.0', 'Azure', 'BigQuery', 'OCI'])
      expect(error.message).toContain(name);
  });

  it('an empty file, a blank file and a header-only export get one plain sentence each', async () => {
    expect((await rejection(write('empty.csv', ''))).message).toBe('The file is empty.');
    expect((await rejection(write('blank.csv', '\ufeff \n\n'))).message).toBe('The file is empty.');
    const headerOnly = await rejection(
      write(
        'header.csv',
        `${readFileSync(join(SAMPLES, 'oci_cost_report_sample.csv'), 'utf8').split('\n')[0]}\n`,
      ),
    );
    expect(headerOnly.message).toBe('The file has no data rows');
  });

  it('a binary file, a corrupt gzip and UTF-16 text are refused in one sentence', async () => {
    const bytes = Buffer.alloc(4096);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
    const binary = await rejection(write('image.png', bytes));
    expect(binary).toBeInstanceOf(IngestRejected);
    expect(binary.message).toMatch(/^The file is not a billing export \(it is not text\)/);
    const corrupt = Buffer.concat([
      gzipSync(Buffer.from('a,b\n')).subarray(0, 4),
      Buffer.from('garbage-garbage'),
    ]);
    expect((await rejection(write('broken.csv.gz', corrupt))).message).toBe(
      'The file is gzip-compressed but could not be decompressed.',
    );
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n1,2\n', 'utf16le')]);
    expect((await rejection(write('excel.csv', utf16))).message).toMatch(/UTF-16/);
  });

  it('JSON that is not a BigQuery billing export is refused', async () => {
    expect((await rejection(write('other.jsonl', '{"a":1}\n{"a":2}\n'))).message).toMatch(
      /^The file is JSON lines but not a Google Cloud BigQuery billing export; accepted are FOCUS/,
    );
    expect((await rejection(write('doc.json', '[{"cost": 1}]'))).message).toMatch(
      /JSON document, not JSON lines/,
    );
  });

  it('a native export with an unreadable cost names the row and the FOCUS column, and ingests nothing', async () => {
    const text = readFileSync(join(SAMPLES, 'oci_cost_report_sample.csv'), 'utf8').split('\n');
    const cols = (text[0] ?? '').split(',');
    const costAt = cols.indexOf('cost/myCost');
    const cells = (text[3] ?? '').split(',');
    cells[costAt] = 'n/a';
    text[3] = cells.join(',');
    const error = await rejection(write('oci-bad.csv', text.join('\n')));
    expect(error).toBeInstanceOf(MalformedFileError);
    expect(error.message).toBe('Row 3 (line 4), column BilledCost: "n/a" is not a number');
    const [n] = await billingRows('org_nat_reject', 'count(*)::INT AS n');
    expect(n?.n).toBe(0);
  });

  it('a FOCUS file missing a required column still says which, and what is accepted', async () => {
    const error = await rejection(
      write('focus-missing.csv', 'BilledCost,ChargePeriodStart,ProviderName\n1,2024-01-01,AWS\n'),
    );
    expect(error).toBeInstanceOf(MalformedFileError);
    expect(error.message).toMatch(
      /^Missing required columns BillingCurrency, ServiceName \(the header has 3 columns and reads as FOCUS; accepted are FOCUS 1.0/,
    );
  });
});
