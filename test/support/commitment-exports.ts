import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMITMENTS_SEED_FILE, type CurLine, curBase } from '../../infra/local/demo-data/commitment-cur';
import { type CsvRow, readCsv } from '../integration/warehouse/support';
import { type Cell, csvTable } from './csv-text';
/**
 * Generated provider exports with commitment lines, for the commitments suites and the benchmark:
 * an AWS CUR 2.0 (Savings Plan and RI lines of every type, on-demand eligible and ineligible
 * usage), an Azure EA amortised export (reservation and savings plan, used and unused, purchases,
 * on-demand), and a Google Cloud BigQuery export in JSON lines (resource- and spend-based CUD fees
 * and credits). Each is the raw text of the file; the tests parse it back to compute their figures.
 */
export function csvText(header: readonly string[], rows: readonly Record<string, Cell>[]): string {
  return csvTable(
    header,
    rows.map((r) => header.map((h) => r[h])),
  );
}

export { CUR2_HEADER, type CurLine } from '../../infra/local/demo-data/commitment-cur';

export const SP_ARN = 'arn:aws:savingsplans::111122223333:savingsplan/sp-c0ffee';
export const RI_ARN = 'arn:aws:ec2:us-east-1:111122223333:reserved-instances/ri-beef';

/**
 * Three days (or more) of AWS lines: on-demand instance hours (eligible) and EBS storage (not), a
 * Savings Plan (two covered hours a day with their negations, the day's recurring fee of 2.4;
 * under-used on the second day) and an RI (24 h a day, 18 h on the third), upfront fees on day 1,
 * tax. `spEnd`/`riEnd` are the terms' ends.
 */
export function curCommitmentLines(days: readonly string[], spEnd: string, riEnd: string): CurLine[] {
  const sp: CurLine = {
    savings_plan_savings_plan_a_r_n: SP_ARN,
    savings_plan_purchase_term: '1yr',
    savings_plan_payment_option: 'No Upfront',
    savings_plan_start_time: '2025-01-01T00:00:00Z',
    savings_plan_end_time: spEnd,
  };
  const ri: CurLine = {
    reservation_reservation_a_r_n: RI_ARN,
    pricing_lease_contract_length: '3yr',
    pricing_purchase_option: 'Partial Upfront',
    reservation_start_time: '2023-01-01T00:00:00Z',
    reservation_end_time: riEnd,
  };
  const out: CurLine[] = [];
  days.forEach((d, i) => {
    out.push({
      ...curBase(d, 0, 'Usage'),
      line_item_unblended_cost: (1.25 + i / 10).toFixed(4),
      pricing_public_on_demand_cost: (1.25 + i / 10).toFixed(4),
    });
    out.push({
      ...curBase(d, 0, 'Usage', '777788889999'),
      line_item_usage_type: 'USE1-EBS:VolumeUsage.gp3',
      pricing_unit: 'GB-Mo',
      line_item_unblended_cost: '0.5',
      pricing_public_on_demand_cost: '0.5',
    });
    const covered = i === 1 ? ['0.6', '0.4'] : ['1.3', '1.1'];
    covered.forEach((eff, h) => {
      const od = (Number(eff) * 1.6).toFixed(4);
      out.push({
        ...curBase(d, h + 1, 'SavingsPlanCoveredUsage'),
        ...sp,
        line_item_unblended_cost: od,
        pricing_public_on_demand_cost: od,
        savings_plan_savings_plan_effective_cost: eff,
      });
      out.push({ ...curBase(d, h + 1, 'SavingsPlanNegation'), ...sp, line_item_unblended_cost: `-${od}` });
    });
    const used = covered.reduce((s, v) => s + Number(v), 0);
    out.push({
      ...curBase(d, 0, 'SavingsPlanRecurringFee'),
      ...sp,
      line_item_product_code: 'ComputeSavingsPlans',
      line_item_usage_type: 'ComputeSP:1yrNoUpfront',
      line_item_unblended_cost: '2.4',
      savings_plan_total_commitment_to_date: '2.4',
      savings_plan_used_commitment: used.toFixed(4),
    });
    const riHours = i === 2 ? 18 : 24;
    out.push({
      ...curBase(d, 3, 'DiscountedUsage'),
      ...ri,
      line_item_usage_type: 'USE1-HeavyUsage:r6g.large',
      line_item_usage_amount: String(riHours),
      line_item_unblended_cost: '0',
      pricing_public_on_demand_cost: (riHours * 0.192).toFixed(4),
      reservation_effective_cost: (riHours * 0.12).toFixed(4),
    });
    out.push({
      ...curBase(d, 0, 'RIFee'),
      ...ri,
      line_item_usage_amount: '24',
      line_item_unblended_cost: '1.92',
      reservation_unused_quantity: String(24 - riHours),
      reservation_unused_amortized_upfront_fee_for_billing_period: ((24 - riHours) * 0.04).toFixed(4),
      reservation_unused_recurring_fee: ((24 - riHours) * 0.08).toFixed(4),
    });
    out.push({ ...curBase(d, 0, 'Tax'), line_item_unblended_cost: '0.31' });
    if (i === 0) {
      out.push({ ...curBase(d, 0, 'SavingsPlanUpfrontFee'), ...sp, line_item_unblended_cost: '876' });
      out.push({ ...curBase(d, 0, 'Fee'), ...ri, line_item_unblended_cost: '350' });
    }
  });
  return out;
}

/**
 * Hourly AWS usage for the simulator: `usage(h)` on-demand dollars of instance hours in hour `h`
 * from `start` (a day), and a Savings Plan whose covered lines carry the rate (`rate` of on-demand)
 * in the first hour of each day.
 */
export function curHourlyLines(
  start: string,
  hours: number,
  usage: (h: number) => number,
  rate: number,
): CurLine[] {
  const out: CurLine[] = [];
  for (let h = 0; h < hours; h++) {
    const u = usage(h);
    if (u > 0)
      out.push({
        ...curBase(start, h, 'Usage'),
        line_item_unblended_cost: u.toFixed(6),
        pricing_public_on_demand_cost: u.toFixed(6),
      });
    if (h % 24 === 0) {
      const od = 2;
      out.push({
        ...curBase(start, h, 'SavingsPlanCoveredUsage'),
        savings_plan_savings_plan_a_r_n: SP_ARN,
        line_item_unblended_cost: od.toFixed(6),
        pricing_public_on_demand_cost: od.toFixed(6),
        savings_plan_savings_plan_effective_cost: (od * rate).toFixed(6),
      });
    }
  }
  return out;
}

export const AZURE_HEADER = [
  'BillingAccountId',
  'BillingPeriodStartDate',
  'BillingPeriodEndDate',
  'Date',
  'MeterCategory',
  'Quantity',
  'UnitOfMeasure',
  'UnitPrice',
  'PayGPrice',
  'CostInBillingCurrency',
  'BillingCurrencyCode',
  'SubscriptionId',
  'ChargeType',
  'PricingModel',
  'Frequency',
  'ReservationId',
  'ReservationName',
  'benefitId',
  'benefitName',
  'Term',
] as const;
export type AzureLine = Partial<Record<(typeof AZURE_HEADER)[number], string | number>>;

const mdy = (day: string) => `${Number(day.slice(5, 7))}/${Number(day.slice(8, 10))}/${day.slice(0, 4)}`;

/** Azure EA amortised lines in EUR: on-demand VMs and storage, a reservation and a savings plan. */
export function azureCommitmentLines(days: readonly string[]): AzureLine[] {
  const out: AzureLine[] = [];
  days.forEach((d, i) => {
    const base = (
      kind: string,
      model: string,
      qty: number,
      cost: number,
      extra: AzureLine = {},
    ): AzureLine => ({
      BillingAccountId: 'ea-1',
      BillingPeriodStartDate: mdy(`${d.slice(0, 7)}-01`),
      BillingPeriodEndDate: mdy(`${d.slice(0, 7)}-28`),
      Date: mdy(d),
      MeterCategory: 'Virtual Machines',
      Quantity: qty,
      UnitOfMeasure: '1 Hour',
      CostInBillingCurrency: cost.toFixed(6),
      BillingCurrencyCode: 'EUR',
      SubscriptionId: 'sub-1',
      ChargeType: kind,
      PricingModel: model,
      Frequency: 'UsageBased',
      ...extra,
    });
    const ri = { ReservationId: 'r-1', ReservationName: 'RI D2s v3', Term: '1 Year' };
    const sp = { benefitId: 'sp-1', benefitName: 'Compute SP', Term: '3 Years' };
    out.push(base('Usage', 'OnDemand', 3, 0.3, { UnitPrice: 0.1, PayGPrice: 0.11 }));
    out.push(
      base('Usage', 'OnDemand', 100, 2, {
        MeterCategory: 'Storage',
        UnitOfMeasure: '1 GB/Month',
        PayGPrice: 0.02,
      }),
    );
    const riQty = 20 - i * 4;
    out.push(base('Usage', 'Reservation', riQty, riQty * 0.06, { ...ri, UnitPrice: 0.1, PayGPrice: 0.11 }));
    if (i > 0)
      out.push(base('UnusedReservation', 'Reservation', i * 4, i * 4 * 0.06, { ...ri, UnitPrice: 0.06 }));
    out.push(base('Usage', 'SavingsPlan', 10, 0.7 - i * 0.1, { ...sp, UnitPrice: 0.1, PayGPrice: 0.1 }));
    if (i === 2) out.push(base('UnusedSavingsPlan', 'SavingsPlan', 1, 0.2, sp));
    if (i === 0) {
      out.push(base('Purchase', 'Reservation', 1, 438, { ...ri, Frequency: 'OneTime' }));
      out.push(base('Purchase', 'SavingsPlan', 1, 21.6, { ...sp, Frequency: 'Recurring' }));
    }
  });
  return out;
}

export interface GcpLine {
  day: string;
  service: [string, string];
  sku: string;
  region: string;
  cost: number;
  amount: number;
  pricingUnit: string;
  credits: { name: string; amount: number; type: string }[];
}

/** Google Cloud lines: CUD fees (resource- and spend-based), covered usage with CUD credits, storage. */
export function gcpCommitmentLines(days: readonly string[]): GcpLine[] {
  const gce: [string, string] = ['6F81-5844-456A', 'Compute Engine'];
  const sql: [string, string] = ['9662-B51E-5089', 'Cloud SQL'];
  const out: GcpLine[] = [];
  days.forEach((day, i) => {
    const line = (l: Omit<GcpLine, 'day'>) => out.push({ day, ...l });
    line({
      service: gce,
      sku: 'Commitment v1: Cpu in us-central1 for 1 Year',
      region: 'us-central1',
      cost: 15.12,
      amount: 192,
      pricingUnit: 'hour',
      credits: [],
    });
    line({
      service: sql,
      sku: 'Commitment - dollar based v1: Cloud SQL for 1 year',
      region: 'europe-west1',
      cost: 5.5,
      amount: 5.5,
      pricingUnit: 'hour',
      credits: [],
    });
    line({
      service: gce,
      sku: 'N2 Instance Core running in Americas',
      region: 'us-central1',
      cost: 24.1 - i,
      amount: 200,
      pricingUnit: 'hour',
      credits: [
        { name: 'Committed use discount: CPU', amount: -(20 - i * 3), type: 'COMMITTED_USAGE_DISCOUNT' },
        { name: 'Sustained use discount', amount: -0.4, type: 'SUSTAINED_USAGE_DISCOUNT' },
      ],
    });
    line({
      service: sql,
      sku: 'Cloud SQL for PostgreSQL: Zonal - vCPU in Belgium',
      region: 'europe-west1',
      cost: 9.9,
      amount: 72,
      pricingUnit: 'hour',
      credits: [
        {
          name: 'Committed use discount - dollar based',
          amount: -(7.4 - i),
          type: 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE',
        },
      ],
    });
    line({
      service: sql,
      sku: 'Storage PD SSD',
      region: 'europe-west1',
      cost: 0.8,
      amount: 10,
      pricingUnit: 'gibibyte month',
      credits: [],
    });
  });
  return out;
}

export function gcpJsonLines(lines: readonly GcpLine[]): string {
  return `${lines
    .map((l) =>
      JSON.stringify({
        billing_account_id: '01ABCD-234567-89EFGH',
        service: { id: l.service[0], description: l.service[1] },
        sku: { id: `sku-${l.sku.length}`, description: l.sku },
        usage_start_time: `${l.day} 00:00:00 UTC`,
        usage_end_time: `${l.day} 01:00:00 UTC`,
        project: { id: 'p-1', name: 'one' },
        location: { location: l.region, region: l.region },
        cost: l.cost,
        currency: 'USD',
        usage: {
          amount: l.amount,
          unit: l.pricingUnit,
          amount_in_pricing_units: l.amount,
          pricing_unit: l.pricingUnit,
        },
        credits: l.credits.map((c) => ({ ...c, id: '', full_name: null })),
        cost_type: 'regular',
        cost_at_list: l.cost,
      }),
    )
    .join('\n')}\n`;
}

/**
 * The demo organisation's generated CUR of commitment lines (`npm start`, infra/local/warehouse-hook.ts),
 * as the FOCUS columns the suites that sum the demo's seeded files read: ProviderName, BilledCost
 * (the CUR's `line_item_unblended_cost`: it has no net column), ChargePeriodStart, BillingPeriodStart
 * and BillingCurrency; no tags. Empty when the state folder has none.
 */
export function demoCommitmentRows(stateDir: string): CsvRow[] {
  const marker = join(stateDir, COMMITMENTS_SEED_FILE);
  if (!existsSync(marker)) return [];
  const { key } = JSON.parse(readFileSync(marker, 'utf8')) as { key: string };
  return readCsv(join(stateDir, 'bucket', key)).map((r) => ({
    ProviderName: 'AWS',
    BilledCost: r.line_item_unblended_cost ?? '0',
    ChargePeriodStart: r.line_item_usage_start_date ?? null,
    BillingPeriodStart: r.bill_billing_period_start_date ?? null,
    BillingCurrency: r.line_item_currency_code ?? null,
    Tags: null,
  }));
}
