import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { type Cell, csvTable } from '../../support/csv-text';
import { suiteFolder } from '../../support/suite-folder';
import { type CsvRow, close, dailyByService, expectSameSums, num, parseCsv, SAMPLES } from './support';

/**
 * Variants of the provider-native exports that real users upload and the other native tests do
 * not: reordered and extra columns, CRLF line ends, blank trailing lines, quoted cells holding
 * commas and line breaks, commitment line types, case-only different tag columns, MCA camelCase
 * spellings, ISO and zero-padded dates, several or no GCP credits, flattened GCP names, tags of
 * several OCI namespaces. Each file is written here; every expected figure is a sum over the raw
 * file parsed in JavaScript (support.ts's RFC 4180 parser or JSON.parse), per day and per service.
 */
const warehouse = new DuckDbWarehouse();
const folder = suiteFolder('native-variants-');
const run = Date.now().toString(36);

function write(name: string, data: string | Buffer): string {
  const path = folder.file(name);
  writeFileSync(path, data);
  return path;
}

async function ingest(org: string, path: string) {
  return warehouse.ingestFile({ orgId: org, path, sourceName: path.split('/').at(-1) ?? path });
}

function sumsOf(items: { day: string; service: string; cost: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of items) {
    const key = `${c.day}|${c.service}`;
    out.set(key, (out.get(key) ?? 0) + c.cost);
  }
  return out;
}

async function tagTotals(orgId: string, key: string): Promise<Map<string, number>> {
  const rows = await withConnection((c) =>
    query(
      c,
      `SELECT "Tags"[$2] AS t, sum("BilledCost") AS c FROM billing WHERE org_id = $1 AND "Tags"[$2] IS NOT NULL GROUP BY 1`,
      [orgId, key],
    ),
  );
  return new Map(rows.map((r) => [String(r.t), Number(r.c)]));
}

function expectSameTotals(actual: Map<string, number>, expected: Map<string, number>) {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [k, v] of expected) expect(close(actual.get(k) ?? Number.NaN, v, 1e-9)).toBe(true);
}

const day = (t: string | null | undefined) => (t ?? '').slice(0, 10);

/** The cells an AWS line begins with: payer, billing period, usage account, type, usage hour, product code. */
const awsLineStart = (period: string, type: string, d: string, code: string, millis: string) => [
  '123456789012',
  `${period}T00:00:00${millis}Z`,
  '210987654321',
  type,
  `${d}T00:00:00${millis}Z`,
  `${d}T01:00:00${millis}Z`,
  code,
];

/** The warehouse's cost of `org` per day and service is the CUR 1.0 lines' `cost` per usage day and product. */
async function expectCur1Sums(org: string, parsed: CsvRow[], cost: (r: CsvRow) => number) {
  expectSameSums(
    await dailyByService(warehouse, org),
    sumsOf(
      parsed.map((r) => ({
        day: day(r['lineItem/UsageStartDate']),
        service: String(r['product/ProductName'] ?? r['lineItem/ProductCode']),
        cost: cost(r),
      })),
    ),
  );
}

/** A CUR line's billed cost: its net unblended cost where it has one, else its unblended cost. */
const billedBy =
  (net: string, unblended: string) =>
  (r: CsvRow): number =>
    r[net] !== null ? num(r[net]) : num(r[unblended]);

/** The billed cost per value of a tag, summed over the raw lines that carry it. */
function totalsByTag(
  parsed: CsvRow[],
  tag: (r: CsvRow) => string | null | undefined,
  billed: (r: CsvRow) => number,
) {
  const expected = new Map<string, number>();
  for (const r of parsed) {
    const v = tag(r);
    if (v) expected.set(v, (expected.get(v) ?? 0) + billed(r));
  }
  return expected;
}
const mdy = (t: string | null | undefined) => {
  const [m, d, y] = (t ?? '').split(' ')[0]!.split('/');
  return `${y}-${m?.padStart(2, '0')}-${d?.padStart(2, '0')}`;
};

describe('AWS CUR variants', () => {
  it('CUR 1.0 sample reordered, with extra columns, CRLF, blank trailing lines and a description holding a comma and a line break, gzipped', async () => {
    const raw = parseCsv(
      readFileSync(join(SAMPLES, 'aws_cur_sample-anonymous-aws-export-dataset.csv'), 'utf8'),
    );
    const header = [...Object.keys(raw[0]!)].reverse();
    header.splice(7, 0, 'costCategory/team', 'discount/TotalDiscount');
    const rows = raw.map((r, i) =>
      header.map((h) =>
        h === 'costCategory/team'
          ? `team ${i % 3}`
          : h === 'discount/TotalDiscount'
            ? ''
            : h === 'lineItem/LineItemDescription' && i % 5 === 0
              ? `${r[h] ?? ''}, billed "as is"\r\nsecond line`
              : r[h],
      ),
    );
    const text = csvTable(header, rows, '\r\n', '\r\n\r\n');
    const path = write('cur1-variant.csv.gz', gzipSync(Buffer.from(text)));
    const parsed = parseCsv(text);
    expect(parsed).toHaveLength(raw.length);
    const org = `org_var_cur1_${run}`;
    expect((await ingest(org, path)).rows).toBe(raw.length);
    await expectCur1Sums(org, parsed, (r) => num(r['lineItem/UnblendedCost']));
    const [described] = await withConnection((c) =>
      query(
        c,
        `SELECT count(*)::INT AS n FROM billing WHERE org_id = $1 AND contains("ChargeDescription", 'second line')`,
        [org],
      ),
    );
    expect(described?.n).toBe(rows.filter((_, i) => i % 5 === 0).length);
  });

  // Commitment lines of one day, with tag columns that differ only in case (AWS tags are case-sensitive).
  const CUR1_HEADER = [
    'identity/LineItemId',
    'bill/PayerAccountId',
    'bill/BillingPeriodStartDate',
    'lineItem/UsageAccountId',
    'lineItem/LineItemType',
    'lineItem/UsageStartDate',
    'lineItem/UsageEndDate',
    'lineItem/ProductCode',
    'lineItem/UsageType',
    'lineItem/UsageAmount',
    'lineItem/CurrencyCode',
    'lineItem/UnblendedCost',
    'lineItem/NetUnblendedCost',
    'lineItem/LineItemDescription',
    'product/ProductName',
    'pricing/publicOnDemandCost',
    'pricing/unit',
    'savingsPlan/SavingsPlanARN',
    'savingsPlan/SavingsPlanEffectiveCost',
    'reservation/ReservationARN',
    'reservation/EffectiveCost',
    'resourceTags/user:Name',
    'resourceTags/user:name',
    'resourceTags/aws:createdBy',
  ];
  const SP = 'arn:aws:savingsplans::123456789012:savingsplan/abc';
  const RI = 'arn:aws:ec2:us-east-1:123456789012:reserved-instances/def';
  // type, day, product code, product name, unblended, net, sp effective, ri effective, Name, name
  const LINES: [string, string, string, string | null, string, string, string, string, string, string][] = [
    ['Usage', '2024-03-01', 'AmazonEC2', 'Amazon Elastic Compute Cloud', '1.25', '', '', '', 'web', ''],
    [
      'SavingsPlanCoveredUsage',
      '2024-03-01',
      'AmazonEC2',
      'Amazon Elastic Compute Cloud',
      '4.1',
      '',
      '2.5',
      '',
      'web',
      'db',
    ],
    [
      'SavingsPlanNegation',
      '2024-03-01',
      'AmazonEC2',
      'Amazon Elastic Compute Cloud',
      '-4.1',
      '',
      '',
      '',
      'web',
      '',
    ],
    [
      'SavingsPlanRecurringFee',
      '2024-03-01',
      'ComputeSavingsPlans',
      'Savings Plans for AWS Compute usage',
      '3',
      '',
      '',
      '',
      '',
      '',
    ],
    [
      'DiscountedUsage',
      '2024-03-02',
      'AmazonRDS',
      'Amazon Relational Database Service',
      '0',
      '',
      '',
      '0.9',
      '',
      'db',
    ],
    ['RIFee', '2024-03-01', 'AmazonRDS', 'Amazon Relational Database Service', '21.6', '', '', '', '', ''],
    ['Tax', '2024-03-01', 'AmazonEC2', null, '0.37', '', '', '', '', ''],
    ['Credit', '2024-03-02', 'AmazonEC2', 'Amazon Elastic Compute Cloud', '-0.5', '', '', '', 'web', ''],
    ['Refund', '2024-03-02', 'AmazonS3', 'Amazon Simple Storage Service', '-0.1', '-0.09', '', '', '', ''],
    ['EdpDiscount', '2024-03-02', 'AmazonS3', 'Amazon Simple Storage Service', '-0.02', '', '', '', '', ''],
    [
      'Usage',
      '2024-03-02',
      'AmazonS3',
      'Amazon Simple Storage Service',
      '0.75',
      '0.7',
      '',
      '',
      'assets, public',
      'x',
    ],
  ];

  it('CUR 1.0 commitment, tax, credit, refund and discount lines: billed per day and service, and tags kept apart by case', async () => {
    const rows = LINES.map(([type, d, code, name, unblended, net, sp, ri, tagName, tagname], i) => [
      `id${i}`,
      ...awsLineStart('2024-03-01', type, d, code, ''),
      'BoxUsage',
      '1',
      'USD',
      unblended,
      net,
      `${type} line, "quoted"`,
      name,
      type === 'Usage' ? unblended : '',
      'Hrs',
      type.startsWith('SavingsPlan') ? SP : '',
      sp,
      type === 'DiscountedUsage' || type === 'RIFee' ? RI : '',
      ri,
      tagName,
      tagname,
      i === 0 ? 'AssumedRole:AROA:me' : '',
    ]);
    const text = csvTable(CUR1_HEADER, rows);
    const parsed = parseCsv(text);
    const org = `org_var_cur1_types_${run}`;
    await ingest(org, write('cur1-types.csv', text));
    // BilledCost is the net unblended cost where the line has one, else the unblended cost.
    const billed = billedBy('lineItem/NetUnblendedCost', 'lineItem/UnblendedCost');
    await expectCur1Sums(org, parsed, billed);
    for (const [column, key] of [
      ['resourceTags/user:Name', 'Name'],
      ['resourceTags/user:name', 'name'],
      ['resourceTags/aws:createdBy', 'aws:createdBy'],
    ] as const) {
      const expected = totalsByTag(parsed, (r) => r[column], billed);
      expect(expected.size).toBeGreaterThan(0);
      expectSameTotals(await tagTotals(org, key), expected);
    }
  });

  it('CUR 2.0 CSV: map columns as JSON (tags, product, cost categories, discounts), empty maps, CRLF', async () => {
    const header = [
      'bill_payer_account_id',
      'bill_billing_period_start_date',
      'line_item_usage_account_id',
      'line_item_line_item_type',
      'line_item_usage_start_date',
      'line_item_usage_end_date',
      'line_item_product_code',
      'line_item_usage_amount',
      'line_item_currency_code',
      'line_item_unblended_cost',
      'line_item_net_unblended_cost',
      'line_item_line_item_description',
      'product',
      'cost_category',
      'discount',
      'resource_tags',
      'savings_plan_savings_plan_effective_cost',
      'pricing_public_on_demand_cost',
    ];
    const products = [
      ['AmazonEC2', { product_name: 'Amazon Elastic Compute Cloud', region: 'us-east-1' }],
      ['AmazonS3', { product_name: 'Amazon Simple Storage Service' }],
      ['AWSLambda', {}],
    ] as const;
    const rows: Cell[][] = [];
    for (let i = 0; i < 60; i++) {
      const [code, product] = products[i % 3]!;
      const d = `2024-06-0${1 + (i % 4)}`;
      const type = i % 10 === 9 ? 'Tax' : i % 7 === 6 ? 'SavingsPlanCoveredUsage' : 'Usage';
      const cost = (((i * 37) % 101) / 7).toFixed(6);
      rows.push([
        ...awsLineStart('2024-06-01', type, d, code, '.000'),
        '1',
        'USD',
        cost,
        i % 4 === 0 ? '' : (Number(cost) * 0.95).toFixed(6),
        `usage, line ${i}`,
        JSON.stringify(product),
        i % 2 ? JSON.stringify({ team: `t${i % 3}` }) : '{}',
        i % 3 ? '{}' : JSON.stringify({ edp_discount: -0.01 }),
        i % 5 === 0 ? '{}' : JSON.stringify({ user_team: `team-${i % 4}`, user_cost_center: 'cc, 42' }),
        type === 'SavingsPlanCoveredUsage' ? (Number(cost) / 2).toFixed(6) : '',
        cost,
      ]);
    }
    const text = csvTable(header, rows, '\r\n', '\r\n');
    const parsed = parseCsv(text);
    const org = `org_var_cur2_${run}`;
    expect((await ingest(org, write('cur2-variant.csv', text))).rows).toBe(rows.length);
    const billed = billedBy('line_item_net_unblended_cost', 'line_item_unblended_cost');
    expectSameSums(
      await dailyByService(warehouse, org),
      sumsOf(
        parsed.map((r) => ({
          day: day(r.line_item_usage_start_date),
          service: String(
            (JSON.parse(r.product ?? '{}') as { product_name?: string }).product_name ??
              r.line_item_product_code,
          ),
          cost: billed(r),
        })),
      ),
    );
    for (const key of ['team', 'cost_center']) {
      const tag = (r: CsvRow) =>
        (JSON.parse(r.resource_tags ?? '{}') as Record<string, string>)[`user_${key}`];
      expectSameTotals(await tagTotals(org, key), totalsByTag(parsed, tag, billed));
    }
  });
});

describe('Azure variants', () => {
  const MCA_HEADER = [
    'invoiceId',
    'billingAccountId',
    'billingPeriodStartDate',
    'billingPeriodEndDate',
    'date',
    'serviceFamily',
    'meterCategory',
    'meterSubCategory',
    'meterName',
    'quantity',
    'unitOfMeasure',
    'effectivePrice',
    'costInBillingCurrency',
    'costInPricingCurrency',
    'costInUsd',
    'paygCostInBillingCurrency',
    'billingCurrency',
    'pricingCurrency',
    'resourceId',
    'resourceLocation',
    'subscriptionId',
    'subscriptionName',
    'resourceGroupName',
    'chargeType',
    'pricingModel',
    'frequency',
    'benefitId',
    'benefitName',
    'tags',
    'additionalInfo',
  ];
  const DATES: [string, string][] = [
    ['2024-09-01', '09/01/2024'],
    ['2024-09-02', '9/2/2024'],
    ['2024-09-03', '2024-09-03'],
    ['2024-09-04', '2024-09-04T00:00:00.0000000Z'],
    // As a spreadsheet saves the file again.
    ['2024-09-05', '9/5/2024 12:00:00 AM'],
    ['2024-09-06', '09/06/2024 00:00:00'],
  ];
  const TAGS = [
    '{"env": "prod", "owner": "a, b"}',
    '"env": "dev","team": "data"',
    '',
    '{}',
    '{"env":"prod","hidden-link: /app-insights-resource-id":"/subscriptions/x"}',
  ];

  function mcaRows(currency: string): Cell[][] {
    const rows: Cell[][] = [];
    for (let i = 0; i < 40; i++) {
      const [, date] = DATES[i % DATES.length]!;
      const category = ['Virtual Machines', 'Storage', 'Azure App Service', 'Bandwidth'][i % 4]!;
      const kind =
        i % 13 === 12 ? 'Purchase' : i % 11 === 10 ? 'Refund' : i % 9 === 8 ? 'UnusedReservation' : 'Usage';
      const cost = ((i % 2 ? -1 : 1) * (kind === 'Usage' ? 1 : 0) + ((i * 1.37) % 9)).toFixed(8);
      rows.push([
        'G123',
        'acc-1',
        '09/01/2024',
        '09/30/2024',
        date,
        'Compute',
        category,
        'D2 v3',
        'D2 v3/D2s v3',
        '1.5',
        '1 Hour',
        '0.1',
        cost,
        cost,
        (Number(cost) * 0.74).toFixed(8),
        (Number(cost) * 1.2).toFixed(8),
        currency,
        currency,
        `/subscriptions/s1/resourceGroups/rg-${i % 3}/providers/Microsoft.Compute/virtualMachines/vm${i}`,
        'westeurope',
        's1',
        'Production, EU',
        `rg-${i % 3}`,
        kind,
        kind === 'Purchase' || kind === 'UnusedReservation' ? 'Reservation' : 'OnDemand',
        kind === 'Purchase' ? 'OneTime' : 'UsageBased',
        kind === 'Purchase' || kind === 'UnusedReservation' ? 'r-1' : '',
        kind === 'Purchase' || kind === 'UnusedReservation' ? 'RI one' : '',
        TAGS[i % TAGS.length],
        '{"UsageType":"ComputeHR","ImageType":"Canonical"}',
      ]);
    }
    return rows;
  }

  function azureExpect(parsed: CsvRow[], cost: string, date: string, service: string) {
    const dayOf = (t: string | null) => (t && /^\d{4}-/.test(t) ? day(t) : mdy(t));
    return sumsOf(
      parsed.map((r) => ({ day: dayOf(r[date]!), service: String(r[service]), cost: num(r[cost]) })),
    );
  }

  /**
   * Ingests the Azure export `text` as `name` for `org` (every parsed line a row) and checks its cost
   * per day and service against the raw file's `cost`, `date` and `service` columns; answers the lines.
   */
  async function ingestAzure(
    org: string,
    name: string,
    text: string,
    cost: string,
    date: string,
    service: string,
  ) {
    const parsed = parseCsv(text);
    expect((await ingest(org, write(name, text))).rows).toBe(parsed.length);
    expectSameSums(await dailyByService(warehouse, org), azureExpect(parsed, cost, date, service));
    return parsed;
  }

  it('MCA camelCase export (EUR): ISO, zero-padded, short and spreadsheet-saved dates; tags with and without braces, empty', async () => {
    const text = csvTable(MCA_HEADER, mcaRows('EUR'), '\r\n', '\r\n\r\n');
    const org = `org_var_mca_${run}`;
    const parsed = await ingestAzure(org, 'mca.csv', text, 'costInBillingCurrency', 'date', 'meterCategory');
    const env = new Map<string, number>();
    for (const r of parsed) {
      const t = r.tags;
      if (!t) continue;
      const v = (JSON.parse(t.startsWith('{') ? t : `{${t}}`) as Record<string, string>).env;
      if (v) env.set(v, (env.get(v) ?? 0) + num(r.costInBillingCurrency));
    }
    expect(env.size).toBe(2);
    expectSameTotals(await tagTotals(org, 'env'), env);
    const [currency] = await withConnection((c) =>
      query(c, `SELECT list(DISTINCT "BillingCurrency") AS c FROM billing WHERE org_id = $1`, [org]),
    );
    expect(currency?.c).toEqual(['EUR']);
  });

  it('EA PascalCase export with a BOM, extra columns and quoted cells, in CAD', async () => {
    const header = MCA_HEADER.map((h) =>
      h === 'costInBillingCurrency'
        ? 'CostInBillingCurrency'
        : h === 'billingCurrency'
          ? 'BillingCurrencyCode'
          : h === 'date'
            ? 'Date'
            : h === 'resourceGroupName'
              ? 'ResourceGroup'
              : `${h[0]!.toUpperCase()}${h.slice(1)}`,
    );
    header.push('CostCenter', 'ServiceInfo1');
    const rows = mcaRows('CAD').map((r, i) => [...r, i % 2 ? 'CC, 1' : '', 'line one\nline two']);
    const text = `\ufeff${csvTable(header, rows)}\n`;
    await ingestAzure(`org_var_ea_${run}`, 'ea.csv', text, 'CostInBillingCurrency', 'Date', 'MeterCategory');
  });
});

describe('Google Cloud variants', () => {
  interface Line {
    day: string;
    service: string;
    cost: number;
    credits: number[];
    labels: { key: string; value: string }[];
  }
  const SERVICES = ['Compute Engine', 'Cloud Storage', 'BigQuery'];
  const lines: Line[] = Array.from({ length: 36 }, (_, i) => ({
    day: `2024-07-0${1 + (i % 3)}`,
    service: SERVICES[i % 3]!,
    cost: Number(((i * 13) % 17) / 3),
    // Several credits on some rows, one on others, none on the rest (as an empty list or a missing field).
    credits: i % 4 === 0 ? [-0.25, -1.5e-5, -(i / 100)] : i % 4 === 1 ? [-0.5] : [],
    labels: i % 3 === 0 ? [{ key: 'team', value: `t${i % 2}` }] : [],
  }));
  const credit = (amount: number, k: number) => ({
    name: k % 2 ? 'Sustained use discount' : 'Committed use discount: CPU',
    amount,
    full_name: null,
    id: `cr-${k}`,
    type: k % 2 ? 'SUSTAINED_USAGE_DISCOUNT' : 'COMMITTED_USAGE_DISCOUNT',
  });

  const expected = () => sumsOf(lines.flatMap((l) => [l, ...l.credits.map((c) => ({ ...l, cost: c }))]));

  it('CSV with flattened underscore names: several credits in one cell, none, and BigQuery UTC timestamps', async () => {
    const header = [
      'billing_account_id',
      'service_id',
      'service_description',
      'sku_description',
      'usage_start_time',
      'usage_end_time',
      'project_id',
      'project_name',
      'labels',
      'location_region',
      'cost',
      'currency',
      'usage_amount',
      'usage_unit',
      'credits',
      'invoice_month',
      'cost_type',
    ];
    const rows = lines.map((l, i) => [
      '01AB23-CD45EF-678901',
      `svc-${i % 3}`,
      l.service,
      `${l.service} usage, per "unit"`,
      `${l.day} 0${i % 9}:00:00 UTC`,
      `${l.day} 0${(i % 9) + 1}:00:00 UTC`,
      'proj-1',
      'Project One',
      JSON.stringify(l.labels),
      'europe-west1',
      String(l.cost),
      'USD',
      '3.5',
      'hour',
      i % 8 === 2 ? '' : JSON.stringify(l.credits.map(credit)),
      '202407',
      'regular',
    ]);
    const text = csvTable(header, rows, '\r\n', '\r\n');
    const org = `org_var_gcp_csv_${run}`;
    const result = await ingest(org, write('gcp-flat.csv', text));
    expect(result.rows).toBe(lines.length + lines.reduce((a, l) => a + l.credits.length, 0));
    expectSameSums(await dailyByService(warehouse, org), expected());
  });

  it('JSON lines, gzipped: numbers as numbers, credits missing or empty, extra nested fields, blank lines', async () => {
    const text = lines
      .map((l, i) =>
        JSON.stringify({
          billing_account_id: '01AB23-CD45EF-678901',
          service: { id: `svc-${i % 3}`, description: l.service },
          sku: { id: `sku-${i}`, description: 'N1 Predefined Instance Core' },
          usage_start_time: i % 2 ? `${l.day} 05:00:00 UTC` : `${l.day}T05:00:00Z`,
          usage_end_time: `${l.day} 06:00:00 UTC`,
          project: {
            id: 'proj-1',
            name: 'Project One',
            labels: [{ key: 'p', value: 'q' }],
            ancestry_numbers: '/123/',
            ancestors: [{ resource_name: 'organizations/123', display_name: 'org' }],
          },
          labels: l.labels,
          system_labels: [{ key: 'compute.googleapis.com/machine_spec', value: 'n1-standard-1' }],
          location: { location: 'us', country: 'US', region: null, zone: null },
          export_time: '2024-07-05 01:02:03.456789 UTC',
          cost: l.cost,
          currency: 'USD',
          currency_conversion_rate: 1,
          usage: { amount: 3600, unit: 'seconds', amount_in_pricing_units: 1, pricing_unit: 'hour' },
          ...(l.credits.length || i % 2 ? { credits: l.credits.map(credit) } : {}),
          invoice: { month: '202407' },
          cost_type: 'regular',
          adjustment_info: { id: null, description: null, mode: null, type: null },
        }),
      )
      .join('\n');
    const org = `org_var_gcp_jsonl_${run}`;
    await ingest(org, write('gcp-variant.jsonl.gz', gzipSync(Buffer.from(`${text}\n\n\n`))));
    expectSameSums(await dailyByService(warehouse, org), expected());
    const team = new Map<string, number>();
    for (const l of lines) {
      const t = l.labels.find((x) => x.key === 'team')?.value;
      if (t) team.set(t, (team.get(t) ?? 0) + l.cost);
    }
    const rows = await withConnection((c) =>
      query(
        c,
        `SELECT "Tags"['team'] AS t, sum("BilledCost") AS c FROM billing WHERE org_id = $1 AND "Tags"['team'] IS NOT NULL AND "ChargeCategory" <> 'Credit' GROUP BY 1`,
        [org],
      ),
    );
    expectSameTotals(new Map(rows.map((r) => [String(r.t), Number(r.c)])), team);
  });
});

describe('OCI variants', () => {
  it('tag columns of several namespaces, CRLF, quoted descriptions, blank trailing lines', async () => {
    const raw = parseCsv(readFileSync(join(SAMPLES, 'oci_cost_report_sample.csv'), 'utf8'));
    const header = [
      ...Object.keys(raw[0]!).filter((h) => !h.startsWith('tags/')),
      'tags/Oracle-Tags.CreatedBy',
      'tags/Finance.CostCenter',
      'tags/orcl-cloud.free-tier-retained',
    ];
    const rows = raw.map((r, i) =>
      header.map((h) =>
        h === 'tags/Oracle-Tags.CreatedBy'
          ? i % 2
            ? 'ocid1.user.oc1..a'
            : ''
          : h === 'tags/Finance.CostCenter'
            ? i % 3
              ? `cc-${i % 3}`
              : ''
            : h === 'tags/orcl-cloud.free-tier-retained'
              ? i % 5
                ? ''
                : 'true'
              : h === 'product/Description' && i % 4 === 0
                ? `${r[h] ?? ''}, "Standard"\nper hour`
                : r[h],
      ),
    );
    const text = csvTable(header, rows, '\r\n', '\r\n\r\n');
    const parsed = parseCsv(text);
    const org = `org_var_oci_${run}`;
    expect((await ingest(org, write('oci-variant.csv', text))).rows).toBe(raw.length);
    expectSameSums(
      await dailyByService(warehouse, org),
      sumsOf(
        parsed.map((r) => ({
          day: day(r['lineItem/intervalUsageStart']),
          service: String(r['product/service']),
          cost: num(r['cost/myCost']),
        })),
      ),
    );
    for (const [column, key] of [
      ['tags/Finance.CostCenter', 'Finance.CostCenter'],
      ['tags/orcl-cloud.free-tier-retained', 'orcl-cloud.free-tier-retained'],
    ]) {
      const expected = new Map<string, number>();
      for (const r of parsed) {
        const v = r[column!];
        if (v) expected.set(v, (expected.get(v) ?? 0) + num(r['cost/myCost']));
      }
      expect(expected.size).toBeGreaterThan(0);
      expectSameTotals(await tagTotals(org, key!), expected);
    }
  });
});
