import { writeFileSync } from 'node:fs';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import {
  AZURE_HEADER,
  type GcpLine,
  gcpCommitmentLines,
  gcpJsonLines,
} from '../../support/commitment-exports';
import { type Cell, csvTable } from '../../support/csv-text';
import { suiteFolder } from '../../support/suite-folder';
import { type CsvRow, close, num, parseCsv } from './support';

/**
 * Commitment discounts in the native converters: one generated export per provider with every
 * commitment line type over three days (the real samples hold none), ingested, and compared with
 * figures summed IN THIS TEST from the raw file: BilledCost and EffectiveCost per day, and per
 * commitment the cost used, the cost unused and the quantities, following the provider's
 * documented meaning of each line (docs/warehouse.md, "Commitment discounts").
 */
const warehouse = new DuckDbWarehouse();
const folder = suiteFolder('native-commitments-');
const run = Date.now().toString(36);

async function ingestText(org: string, name: string, text: string) {
  const path = folder.file(name);
  writeFileSync(path, text);
  return warehouse.ingestFile({ orgId: org, path, sourceName: name });
}

interface Stored {
  day: string;
  billed: number;
  effective: number;
  list: number | null;
  contracted: number | null;
  category: string;
  id: string | null;
  name: string | null;
  type: string | null;
  ccat: string | null;
  status: string | null;
  qty: number | null;
  unit: string | null;
  line: string | null;
}

async function stored(org: string): Promise<Stored[]> {
  const rows = await withConnection((c) =>
    query(
      c,
      `SELECT strftime("ChargePeriodStart", '%Y-%m-%d') AS day, "BilledCost" AS billed, "EffectiveCost" AS effective,
        "ListCost" AS list, "ContractedCost" AS contracted, "ChargeCategory" AS category,
        "CommitmentDiscountId" AS id, "CommitmentDiscountName" AS name, "CommitmentDiscountType" AS type,
        "CommitmentDiscountCategory" AS ccat, "CommitmentDiscountStatus" AS status,
        "CommitmentDiscountQuantity" AS qty, "CommitmentDiscountUnit" AS unit, x_columns['x_LineItemType'] AS line
       FROM billing WHERE org_id = $1`,
      [org],
    ),
  );
  return rows.map((r) => ({
    day: String(r.day),
    billed: Number(r.billed),
    effective: Number(r.effective),
    list: r.list === null ? null : Number(r.list),
    contracted: r.contracted === null ? null : Number(r.contracted),
    category: String(r.category),
    id: (r.id as string | null) ?? null,
    name: (r.name as string | null) ?? null,
    type: (r.type as string | null) ?? null,
    ccat: (r.ccat as string | null) ?? null,
    status: (r.status as string | null) ?? null,
    qty: r.qty === null ? null : Number(r.qty),
    unit: (r.unit as string | null) ?? null,
    line: (r.line as string | null) ?? null,
  }));
}

function add(m: Map<string, number>, k: string, v: number) {
  m.set(k, (m.get(k) ?? 0) + v);
}

function expectSame(actual: Map<string, number>, expected: Map<string, number>) {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [k, v] of expected) {
    const got = actual.get(k) ?? Number.NaN;
    if (!close(got, v, 1e-9)) throw new Error(`${k}: stored ${got}, raw rows ${v}`);
  }
}

/** The sums of `value` per `key` over the stored rows equal `expected` (from the raw file). */
function expectStored(
  rows: Stored[],
  key: (r: Stored) => string | null,
  value: (r: Stored) => number,
  expected: Map<string, number>,
) {
  expectSame(storedBy(rows, key, value), expected);
}

/** The sums of `value` per day over the stored rows equal `expected` (from the raw file). */
const expectDaily = (rows: Stored[], value: (r: Stored) => number, expected: Map<string, number>) =>
  expectStored(rows, (r) => r.day, value, expected);

/** The stored BilledCost and EffectiveCost per day equal the sums from the raw file. */
function expectPerDay(rows: Stored[], billed: Map<string, number>, effective: Map<string, number>) {
  expectDaily(rows, (r) => r.billed, billed);
  expectDaily(rows, (r) => r.effective, effective);
}

/** The key of a commitment's figures per day. */
const key = (r: Stored) => `${r.id}|${r.day}`;

/** The EffectiveCost of each commitment's Used and of its Unused lines per day equal the raw file's. */
function expectUsedUnused(rows: Stored[], used: Map<string, number>, unused: Map<string, number>) {
  expectStored(
    rows.filter((r) => r.status === 'Used'),
    key,
    (r) => r.effective,
    used,
  );
  expectStored(
    rows.filter((r) => r.status === 'Unused'),
    key,
    (r) => r.effective,
    unused,
  );
}

/** Sum of `value` per `key` over stored rows (rows whose key is null are left out). */
function storedBy(rows: Stored[], key: (r: Stored) => string | null, value: (r: Stored) => number) {
  const out = new Map<string, number>();
  for (const r of rows) {
    const k = key(r);
    if (k !== null) add(out, k, value(r));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// AWS: the same lines written as CUR 1.0 and as CUR 2.0.

const SP = 'arn:aws:savingsplans::111122223333:savingsplan/sp-0a1b';
const RI = 'arn:aws:ec2:us-east-1:111122223333:reserved-instances/ri-9f8e';
const DAYS = ['2024-04-01', '2024-04-02', '2024-04-03'];

/** The CUR columns used, by CUR 1.0 name, with their CUR 2.0 name. */
const CUR_COLUMNS: [string, string][] = [
  ['bill/PayerAccountId', 'bill_payer_account_id'],
  ['bill/BillingPeriodStartDate', 'bill_billing_period_start_date'],
  ['lineItem/UsageAccountId', 'line_item_usage_account_id'],
  ['lineItem/LineItemType', 'line_item_line_item_type'],
  ['lineItem/UsageStartDate', 'line_item_usage_start_date'],
  ['lineItem/UsageEndDate', 'line_item_usage_end_date'],
  ['lineItem/ProductCode', 'line_item_product_code'],
  ['lineItem/UsageAmount', 'line_item_usage_amount'],
  ['lineItem/CurrencyCode', 'line_item_currency_code'],
  ['lineItem/UnblendedCost', 'line_item_unblended_cost'],
  ['lineItem/NetUnblendedCost', 'line_item_net_unblended_cost'],
  ['pricing/publicOnDemandCost', 'pricing_public_on_demand_cost'],
  ['pricing/unit', 'pricing_unit'],
  ['savingsPlan/SavingsPlanARN', 'savings_plan_savings_plan_a_r_n'],
  ['savingsPlan/SavingsPlanEffectiveCost', 'savings_plan_savings_plan_effective_cost'],
  ['savingsPlan/TotalCommitmentToDate', 'savings_plan_total_commitment_to_date'],
  ['savingsPlan/UsedCommitment', 'savings_plan_used_commitment'],
  ['reservation/ReservationARN', 'reservation_reservation_a_r_n'],
  ['reservation/EffectiveCost', 'reservation_effective_cost'],
  ['reservation/UnusedQuantity', 'reservation_unused_quantity'],
  [
    'reservation/UnusedAmortizedUpfrontFeeForBillingPeriod',
    'reservation_unused_amortized_upfront_fee_for_billing_period',
  ],
  ['reservation/UnusedRecurringFee', 'reservation_unused_recurring_fee'],
  ['savingsPlan/PurchaseTerm', 'savings_plan_purchase_term'],
  ['savingsPlan/PaymentOption', 'savings_plan_payment_option'],
  ['savingsPlan/StartTime', 'savings_plan_start_time'],
  ['savingsPlan/EndTime', 'savings_plan_end_time'],
  ['savingsPlan/Region', 'savings_plan_region'],
  ['savingsPlan/InstanceTypeFamily', 'savings_plan_instance_type_family'],
  ['pricing/LeaseContractLength', 'pricing_lease_contract_length'],
  ['pricing/PurchaseOption', 'pricing_purchase_option'],
  ['reservation/StartTime', 'reservation_start_time'],
  ['reservation/EndTime', 'reservation_end_time'],
  ['product/regionCode', 'product_region_code'],
  ['product/instanceFamily', 'product_instance_family'],
];

/** The terms the CUR writes on a commitment's lines (Savings Plan, RI), and on on-demand usage the region. */
const SP_TERMS: CurLine = {
  'savingsPlan/PurchaseTerm': '1yr',
  'savingsPlan/PaymentOption': 'Partial Upfront',
  'savingsPlan/StartTime': '2024-01-15T00:00:00Z',
  'savingsPlan/EndTime': '2025-01-14T23:59:59Z',
  'savingsPlan/Region': 'US East (N. Virginia)',
  'savingsPlan/InstanceTypeFamily': 'm5',
};
const RI_TERMS: CurLine = {
  'pricing/LeaseContractLength': '3yr',
  'pricing/PurchaseOption': 'All Upfront',
  'reservation/StartTime': '2023-06-01T00:00:00Z',
  'reservation/EndTime': '2026-05-31T23:59:59Z',
  'product/regionCode': 'us-east-1',
  'product/instanceFamily': 'r6g',
};

type CurLine = Record<string, string>;

/** Every SP and RI line type per day; the Savings Plan is under-used on day 2, the RI on day 3. */
function curLines(): CurLine[] {
  const out: CurLine[] = [];
  DAYS.forEach((d, i) => {
    const base = (type: string, hour = 0): CurLine => ({
      'bill/PayerAccountId': '111122223333',
      'bill/BillingPeriodStartDate': '2024-04-01T00:00:00Z',
      'lineItem/UsageAccountId': '444455556666',
      'lineItem/LineItemType': type,
      'lineItem/UsageStartDate': `${d}T${String(hour).padStart(2, '0')}:00:00Z`,
      'lineItem/UsageEndDate': `${d}T${String(hour + 1).padStart(2, '0')}:00:00Z`,
      'lineItem/ProductCode': 'AmazonEC2',
      'lineItem/UsageAmount': '1',
      'lineItem/CurrencyCode': 'USD',
      'pricing/unit': 'Hrs',
      ...(type.startsWith('SavingsPlan') ? SP_TERMS : {}),
      ...(type === 'DiscountedUsage' || type === 'RIFee' || type === 'Fee' ? RI_TERMS : {}),
      ...(type === 'Usage' ? { 'product/regionCode': 'us-east-1' } : {}),
    });
    // On-demand usage, with a net cost on day 1.
    out.push({
      ...base('Usage'),
      'lineItem/UnblendedCost': '1.25',
      'lineItem/NetUnblendedCost': i === 0 ? '1.2' : '',
      'pricing/publicOnDemandCost': '1.25',
    });
    // Savings Plan: two covered hours, their negations, the day's recurring fee (commitment 2.4/day).
    const covered = i === 1 ? ['0.6', '0.4'] : ['1.3', '1.1'];
    covered.forEach((eff, h) => {
      const od = (Number(eff) * 1.6).toFixed(4);
      out.push({
        ...base('SavingsPlanCoveredUsage', h + 1),
        'lineItem/UnblendedCost': od,
        'pricing/publicOnDemandCost': od,
        'savingsPlan/SavingsPlanARN': SP,
        'savingsPlan/SavingsPlanEffectiveCost': eff,
      });
      out.push({
        ...base('SavingsPlanNegation', h + 1),
        'lineItem/UnblendedCost': `-${od}`,
        'savingsPlan/SavingsPlanARN': SP,
      });
    });
    const used = covered.reduce((s, v) => s + Number(v), 0);
    out.push({
      ...base('SavingsPlanRecurringFee'),
      'lineItem/ProductCode': 'ComputeSavingsPlans',
      'lineItem/UnblendedCost': '2.4',
      'savingsPlan/SavingsPlanARN': SP,
      'savingsPlan/TotalCommitmentToDate': '2.4',
      'savingsPlan/UsedCommitment': used.toFixed(4),
    });
    // Reserved instance: discounted usage hours and the day's RI fee with its unused hours.
    const riHours = i === 2 ? 18 : 24;
    out.push({
      ...base('DiscountedUsage', 3),
      'lineItem/UsageAmount': String(riHours),
      'lineItem/UnblendedCost': '0',
      'pricing/publicOnDemandCost': (riHours * 0.192).toFixed(4),
      'reservation/ReservationARN': RI,
      'reservation/EffectiveCost': (riHours * 0.12).toFixed(4),
    });
    out.push({
      ...base('RIFee'),
      'lineItem/UsageAmount': '24',
      'lineItem/UnblendedCost': '1.92',
      'reservation/ReservationARN': RI,
      'reservation/UnusedQuantity': String(24 - riHours),
      'reservation/UnusedAmortizedUpfrontFeeForBillingPeriod': ((24 - riHours) * 0.04).toFixed(4),
      'reservation/UnusedRecurringFee': ((24 - riHours) * 0.08).toFixed(4),
    });
    out.push({ ...base('Tax'), 'lineItem/UnblendedCost': '0.31' });
    if (i === 0) {
      out.push({
        ...base('SavingsPlanUpfrontFee'),
        'lineItem/UnblendedCost': '876',
        'savingsPlan/SavingsPlanARN': SP,
      });
      out.push({ ...base('Fee'), 'lineItem/UnblendedCost': '350', 'reservation/ReservationARN': RI });
    }
  });
  return out;
}

/** What the raw CUR says of a line, read from its own columns (the documented line item meanings). */
function curFigures(r: CsvRow, c: (slash: string) => string | null) {
  const type = c('lineItem/LineItemType');
  const billed =
    c('lineItem/NetUnblendedCost') !== null
      ? num(c('lineItem/NetUnblendedCost'))
      : num(c('lineItem/UnblendedCost'));
  const spUnused = num(c('savingsPlan/TotalCommitmentToDate')) - num(c('savingsPlan/UsedCommitment'));
  const riUnusedCost =
    num(c('reservation/UnusedAmortizedUpfrontFeeForBillingPeriod')) +
    num(c('reservation/UnusedRecurringFee'));
  const effective =
    type === 'SavingsPlanCoveredUsage'
      ? num(c('savingsPlan/SavingsPlanEffectiveCost'))
      : type === 'DiscountedUsage'
        ? num(c('reservation/EffectiveCost'))
        : type === 'SavingsPlanRecurringFee'
          ? spUnused
          : type === 'RIFee'
            ? riUnusedCost
            : type === 'SavingsPlanNegation' || type === 'SavingsPlanUpfrontFee' || type === 'Fee'
              ? 0
              : billed;
  const id = c('savingsPlan/SavingsPlanARN') ?? c('reservation/ReservationARN');
  const used = type === 'SavingsPlanCoveredUsage' || type === 'DiscountedUsage' ? effective : 0;
  const unused = type === 'SavingsPlanRecurringFee' || type === 'RIFee' ? effective : 0;
  const usedQty =
    type === 'SavingsPlanCoveredUsage'
      ? num(c('savingsPlan/SavingsPlanEffectiveCost'))
      : type === 'DiscountedUsage'
        ? num(c('lineItem/UsageAmount'))
        : 0;
  const unusedQty =
    type === 'SavingsPlanRecurringFee'
      ? spUnused
      : type === 'RIFee'
        ? num(c('reservation/UnusedQuantity'))
        : 0;
  return {
    type,
    day: (c('lineItem/UsageStartDate') ?? '').slice(0, 10),
    billed,
    effective,
    id,
    used,
    unused,
    usedQty,
    unusedQty,
    raw: r,
  };
}

describe.each([
  ['CUR 1.0', 0],
  ['CUR 2.0', 1],
] as const)('AWS %s commitment lines', (label, form) => {
  const header = CUR_COLUMNS.map((pair) => pair[form]);
  const lines = curLines();
  const text = csvTable(
    header,
    lines.map((l) => CUR_COLUMNS.map(([slash]) => l[slash] ?? '')),
  );
  const org = `org_cmt_cur${form + 1}_${run}`;
  let rows: Stored[] = [];
  let raw: ReturnType<typeof curFigures>[] = [];

  beforeAll(async () => {
    await ingestText(org, `commitments-cur${form + 1}.csv`, text);
    rows = await stored(org);
    const index = new Map(CUR_COLUMNS.map(([slash], i) => [slash, header[i]!]));
    raw = parseCsv(text).map((r) => curFigures(r, (slash) => r[index.get(slash)!] ?? null));
  });

  it(`${label}: BilledCost and EffectiveCost per day equal the raw lines' sums`, () => {
    expect(rows).toHaveLength(raw.length);
    const billed = new Map<string, number>();
    const effective = new Map<string, number>();
    for (const r of raw) {
      add(billed, r.day, r.billed);
      add(effective, r.day, r.effective);
    }
    expectPerDay(rows, billed, effective);
  });

  it(`${label}: used and unused cost and quantity per commitment and day, status, type and category per line type`, () => {
    const used = new Map<string, number>();
    const unused = new Map<string, number>();
    const usedQty = new Map<string, number>();
    const unusedQty = new Map<string, number>();
    for (const r of raw) {
      if (!r.id) continue;
      if (r.used) add(used, `${r.id}|${r.day}`, r.used);
      if (r.unused) add(unused, `${r.id}|${r.day}`, r.unused);
      if (r.usedQty) add(usedQty, `${r.id}|${r.day}`, r.usedQty);
      if (r.unusedQty) add(unusedQty, `${r.id}|${r.day}`, r.unusedQty);
    }
    // Day 2 leaves Savings Plan commitment unused, day 3 RI hours; every day uses both.
    expect(unused.size).toBe(2);
    expectUsedUnused(rows, used, unused);
    expectStored(
      rows.filter((r) => r.status === 'Used' && r.qty !== null),
      key,
      (r) => r.qty ?? 0,
      usedQty,
    );
    expectStored(
      rows.filter((r) => r.status === 'Unused'),
      key,
      (r) => r.qty ?? 0,
      unusedQty,
    );
    const byType = (t: string) => rows.filter((r) => r.line === t);
    const expectCommitment = (types: string[], id: string, name: string, type: string, ccat: string) => {
      for (const t of types)
        for (const r of byType(t))
          expect({ t, id: r.id, name: r.name, type: r.type, ccat: r.ccat }).toEqual({
            t,
            id,
            name,
            type,
            ccat,
          });
    };
    expectCommitment(
      ['SavingsPlanCoveredUsage', 'SavingsPlanNegation', 'SavingsPlanRecurringFee', 'SavingsPlanUpfrontFee'],
      SP,
      'sp-0a1b',
      'Savings Plan',
      'Spend',
    );
    expectCommitment(['DiscountedUsage', 'RIFee', 'Fee'], RI, 'ri-9f8e', 'Reservation', 'Usage');
    expect(byType('SavingsPlanCoveredUsage').every((r) => r.status === 'Used' && r.unit === 'USD')).toBe(
      true,
    );
    expect(byType('DiscountedUsage').every((r) => r.status === 'Used' && r.unit === 'Hrs')).toBe(true);
    expect(byType('SavingsPlanNegation').every((r) => r.status === 'Used')).toBe(true);
    // A fee line whose period used the whole commitment is no unused commitment.
    expect(byType('SavingsPlanRecurringFee').map((r) => [r.day, r.status])).toEqual(
      expect.arrayContaining([
        ['2024-04-01', null],
        ['2024-04-02', 'Unused'],
        ['2024-04-03', null],
      ]),
    );
    expect(byType('RIFee').find((r) => r.day === '2024-04-03')?.status).toBe('Unused');
    expect(byType('Usage').every((r) => r.id === null && r.status === null)).toBe(true);
    expect(byType('Tax').every((r) => r.id === null)).toBe(true);
  });

  it(`${label}: each commitment keeps the terms its lines carry (term, start, end, purchase option, hourly commitment, region, family)`, async () => {
    const terms = await withConnection((c) =>
      query(
        c,
        `SELECT "CommitmentDiscountId" AS id, x_columns['x_LineItemType'] AS line, x_columns['x_CommitmentTerm'] AS term,
          x_columns['x_CommitmentStart'] AS start, x_columns['x_CommitmentEnd'] AS "end",
          x_columns['x_CommitmentPurchaseOption'] AS option, x_columns['x_CommitmentHourly'] AS hourly,
          x_columns['x_CommitmentRegion'] AS region, x_columns['x_CommitmentInstanceFamily'] AS family
         FROM billing WHERE org_id = $1`,
        [org],
      ),
    );
    const parsed = parseCsv(text);
    const col = (r: CsvRow, slash: string) => r[header[CUR_COLUMNS.findIndex(([s]) => s === slash)]!] ?? null;
    const expected = parsed.map((r) => {
      const sp = col(r, 'savingsPlan/SavingsPlanARN');
      const ri = col(r, 'reservation/ReservationARN');
      const type = col(r, 'lineItem/LineItemType');
      const pick = (spCol: string, riCol: string) => (sp ? col(r, spCol) : ri ? col(r, riCol) : null);
      return {
        id: sp ?? ri,
        line: type,
        term: pick('savingsPlan/PurchaseTerm', 'pricing/LeaseContractLength'),
        start: pick('savingsPlan/StartTime', 'reservation/StartTime'),
        end: pick('savingsPlan/EndTime', 'reservation/EndTime'),
        option: pick('savingsPlan/PaymentOption', 'pricing/PurchaseOption'),
        // The fee lines here are one hour long: their commitment to date is the hourly commitment.
        hourly: type === 'SavingsPlanRecurringFee' ? num(col(r, 'savingsPlan/TotalCommitmentToDate')) : null,
        region: pick('savingsPlan/Region', 'product/regionCode'),
        family: pick('savingsPlan/InstanceTypeFamily', 'product/instanceFamily'),
      };
    });
    const got = terms.map((t) => ({
      id: t.id ?? null,
      line: t.line,
      term: t.term ?? null,
      start: t.start ?? null,
      end: t.end ?? null,
      option: t.option ?? null,
      hourly: t.hourly === null || t.hourly === undefined ? null : Number(t.hourly),
      region: t.region ?? null,
      family: t.family ?? null,
    }));
    const order = (a: { line: unknown; start: unknown }, b: { line: unknown; start: unknown }) =>
      String(a.line).localeCompare(String(b.line));
    expect(got.sort(order)).toEqual(expect.arrayContaining(expected.sort(order)));
    expect(got).toHaveLength(expected.length);
    expect(expected.filter((e) => e.id === SP && e.term === '1yr').length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.id === RI && e.family === 'r6g').length).toBeGreaterThan(0);
  });

  it(`${label}: list cost is the public on-demand cost, contracted cost the cost at the account's rates without the commitment`, () => {
    const list = new Map<string, number>();
    const contracted = new Map<string, number>();
    for (const r of raw) {
      const c = (slash: string) => r.raw[header[CUR_COLUMNS.findIndex(([s]) => s === slash)]!] ?? null;
      add(list, r.day, num(c('pricing/publicOnDemandCost')));
      add(
        contracted,
        r.day,
        r.type === 'SavingsPlanCoveredUsage'
          ? num(c('lineItem/UnblendedCost'))
          : r.type === 'DiscountedUsage'
            ? num(c('pricing/publicOnDemandCost'))
            : r.type === 'SavingsPlanNegation'
              ? 0
              : r.billed,
      );
    }
    expectDaily(rows, (r) => r.list ?? 0, list);
    expectDaily(rows, (r) => r.contracted ?? 0, contracted);
  });
});

// ---------------------------------------------------------------------------------------------
// Azure: an EA amortised export with reservations and savings plans, used and unused, and purchases.

/** The generated Azure export's columns without `Term` (this file's rows carry no terms). */
const AZ_HEADER = AZURE_HEADER.filter((h) => h !== 'Term');

function azureRows(): Cell[][] {
  const rows: Cell[][] = [];
  ['4/1/2024', '4/2/2024', '4/3/2024'].forEach((date, i) => {
    const row = (
      kind: string,
      model: string,
      qty: number,
      cost: number,
      extra: { ri?: boolean; sp?: boolean; freq?: string; unit?: number; payg?: number } = {},
    ): Cell[] => [
      'ea-1',
      '4/1/2024',
      '4/30/2024',
      date,
      'Virtual Machines',
      qty,
      '1 Hour',
      extra.unit ?? '',
      extra.payg ?? '',
      cost.toFixed(6),
      'EUR',
      'sub-1',
      kind,
      model,
      extra.freq ?? 'UsageBased',
      extra.ri ? 'r-1' : '',
      extra.ri ? 'RI D2s v3' : '',
      extra.sp ? 'sp-1' : '',
      extra.sp ? 'Compute SP' : '',
    ];
    rows.push(row('Usage', 'OnDemand', 3, 0.3, { unit: 0.1, payg: 0.11 }));
    rows.push(
      row('Usage', 'Reservation', 20 - i * 4, (20 - i * 4) * 0.06, { ri: true, unit: 0.1, payg: 0.11 }),
    );
    if (i > 0)
      rows.push(
        row('UnusedReservation', 'Reservation', i * 4, i * 4 * 0.06, { ri: true, unit: 0.06, payg: 0.11 }),
      );
    rows.push(row('Usage', 'SavingsPlan', 10, 0.7 - i * 0.1, { sp: true, unit: 0.1, payg: 0.1 }));
    if (i === 2) rows.push(row('UnusedSavingsPlan', 'SavingsPlan', 1, 0.2, { sp: true }));
    if (i === 0) {
      rows.push(row('Purchase', 'Reservation', 1, 438, { ri: true, freq: 'OneTime' }));
      rows.push(row('Purchase', 'SavingsPlan', 1, 21.6, { sp: true, freq: 'Recurring' }));
    }
  });
  return rows;
}

describe('Azure reservations and savings plans', () => {
  const text = csvTable(AZ_HEADER, azureRows());
  const org = `org_cmt_azure_${run}`;
  let rows: Stored[] = [];
  let raw: CsvRow[] = [];
  const dayOf = (r: CsvRow) => {
    const [m, d, y] = String(r.Date).split('/');
    return `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
  };
  const commitmentOf = (r: CsvRow) => r.ReservationId ?? r.benefitId;

  beforeAll(async () => {
    await ingestText(org, 'commitments-azure.csv', text);
    rows = await stored(org);
    raw = parseCsv(text);
  });

  it('BilledCost per day is the export cost; EffectiveCost leaves out commitment purchases', () => {
    expect(rows).toHaveLength(raw.length);
    const billed = new Map<string, number>();
    const effective = new Map<string, number>();
    for (const r of raw) {
      add(billed, dayOf(r), num(r.CostInBillingCurrency));
      const purchase =
        r.ChargeType === 'Purchase' && (r.PricingModel === 'Reservation' || r.PricingModel === 'SavingsPlan');
      add(effective, dayOf(r), purchase ? 0 : num(r.CostInBillingCurrency));
    }
    expectPerDay(rows, billed, effective);
  });

  it('used and unused cost and quantity per commitment and day; list and contracted cost 0 on unused lines', () => {
    const used = new Map<string, number>();
    const unused = new Map<string, number>();
    const qty = new Map<string, number>();
    const list = new Map<string, number>();
    for (const r of raw) {
      const id = commitmentOf(r);
      const k = `${id}|${dayOf(r)}`;
      const isUnused = r.ChargeType === 'UnusedReservation' || r.ChargeType === 'UnusedSavingsPlan';
      if (id && r.ChargeType === 'Usage') add(used, k, num(r.CostInBillingCurrency));
      if (isUnused) add(unused, k, num(r.CostInBillingCurrency));
      if (id && (r.ChargeType === 'Usage' || isUnused))
        add(
          qty,
          `${k}|${isUnused ? 'Unused' : 'Used'}`,
          r.PricingModel === 'Reservation' ? num(r.Quantity) : num(r.CostInBillingCurrency),
        );
      add(list, dayOf(r), isUnused ? 0 : num(r.PayGPrice) * num(r.Quantity));
    }
    expect(unused.size).toBe(3);
    expectUsedUnused(rows, used, unused);
    expectStored(
      rows.filter((r) => r.status !== null),
      (r) => `${key(r)}|${r.status}`,
      (r) => r.qty ?? Number.NaN,
      qty,
    );
    expectDaily(rows, (r) => r.list ?? 0, list);
    for (const r of rows.filter((x) => x.status === 'Unused')) expect(r.contracted).toBe(0);
    for (const r of rows.filter((x) => x.id === 'r-1'))
      expect([r.name, r.type, r.ccat]).toEqual(['RI D2s v3', 'Reservation', 'Usage']);
    for (const r of rows.filter((x) => x.id === 'sp-1'))
      expect([r.name, r.type, r.ccat]).toEqual(['Compute SP', 'Savings Plan', 'Spend']);
    expect(rows.filter((r) => r.status !== null && r.ccat === 'Spend').every((r) => r.unit === 'EUR')).toBe(
      true,
    );
    expect(
      rows.filter((r) => r.status !== null && r.ccat === 'Usage').every((r) => r.unit === '1 Hour'),
    ).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Google Cloud: resource- and spend-based CUDs, their fee SKUs and credits, in JSON lines.

describe('Google Cloud committed use discounts', () => {
  const text = gcpJsonLines(gcpCommitmentLines(['2024-05-01', '2024-05-02', '2024-05-03']));
  const org = `org_cmt_gcp_${run}`;
  let rows: Stored[] = [];
  let raw: GcpLine[] = [];

  beforeAll(async () => {
    await ingestText(org, 'commitments-gcp.jsonl', text);
    rows = await stored(org);
    raw = text
      .trimEnd()
      .split('\n')
      .map((t) => {
        const j = JSON.parse(t);
        return {
          day: j.usage_start_time.slice(0, 10),
          service: [j.service.id, j.service.description],
          sku: j.sku.description,
          region: j.location.region,
          cost: j.cost,
          amount: j.usage.amount_in_pricing_units,
          pricingUnit: j.usage.pricing_unit,
          credits: j.credits,
        } as GcpLine;
      });
  });

  it('BilledCost and EffectiveCost per day equal cost plus credits of the raw lines', () => {
    const totals = new Map<string, number>();
    for (const l of raw) add(totals, l.day, l.cost + l.credits.reduce((s, c) => s + c.amount, 0));
    expectPerDay(rows, totals, totals);
  });

  it('fee SKUs are recurring purchases and CUD credits the commitment used, both on the pool of service, kind and region', () => {
    const fees = new Map<string, number>();
    const credits = new Map<string, number>();
    for (const l of raw) {
      const spend = l.sku.includes('dollar based');
      if (l.sku.startsWith('Commitment'))
        add(fees, `${l.service[0]}/${spend ? 'spend' : 'resource'}/${l.region}|${l.day}`, l.cost);
      for (const c of l.credits) {
        if (c.type === 'COMMITTED_USAGE_DISCOUNT' || c.type === 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE')
          add(
            credits,
            `${l.service[0]}/${c.type.endsWith('DOLLAR_BASE') ? 'spend' : 'resource'}/${l.region}|${l.day}`,
            c.amount,
          );
      }
    }
    expect(fees.size).toBe(6);
    const feeRows = rows.filter((r) => r.category === 'Purchase');
    expectSame(
      storedBy(feeRows, key, (r) => r.billed),
      fees,
    );
    // Credits are EffectiveCost as billed; a pool's unused part is not a line of its own.
    expectUsedUnused(rows, credits, new Map());
    expect(feeRows.every((r) => r.status === null && r.type === 'Committed Use Discount')).toBe(true);
    for (const r of rows.filter((x) => x.id !== null))
      expect(r.ccat).toBe(r.id?.includes('/spend/') ? 'Spend' : 'Usage');
    expect(rows.find((r) => r.id?.includes('/resource/'))?.name).toBe(
      'Compute Engine resource-based CUD, us-central1',
    );
    // The sustained use discount and plain usage belong to no commitment.
    const sud = raw.flatMap((l) => l.credits).filter((c) => c.type === 'SUSTAINED_USAGE_DISCOUNT').length;
    expect(rows.filter((r) => r.category === 'Credit' && r.id === null)).toHaveLength(sud);
    // Spend-based quantities: the covered spend (credit made positive) in the billing currency.
    const spendCovered = raw
      .flatMap((l) => l.credits)
      .filter((c) => c.type === 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE')
      .reduce((s, c) => s - c.amount, 0);
    const storedCovered = rows
      .filter((r) => r.status === 'Used' && r.ccat === 'Spend')
      .reduce((s, r) => s + (r.qty ?? 0), 0);
    expect(close(storedCovered, spendCovered, 1e-9)).toBe(true);
  });
});
