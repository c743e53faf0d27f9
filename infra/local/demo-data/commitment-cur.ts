import { seededRandom } from './random';

/**
 * A GENERATED AWS CUR 2.0 with commitment discounts, for the demo organisation of `npm start` (so
 * its Commitments page, the commitment metrics and the expiring list have something to show) and
 * the line shapes the commitments suites build their own exports from
 * (test/support/commitment-exports.ts). It is not a real export: every figure is made up here,
 * from a seeded random source, and the payer account (`DEMO_CUR_PAYER`) is one no real CUR has.
 *
 * Per day: a Compute Savings Plan of $3/hour (covered EC2 and Fargate usage with its negations,
 * the day's recurring fee with its used commitment; under-used on quiet days), an RDS reserved
 * instance pair (48 hours a day, fewer on some days: its RI fee carries the unused part), EC2
 * on-demand instance hours it did not cover (eligible) and EBS storage (not), and the upfront fees
 * on the first day. The Savings Plan's term ends 80 days after `now`, the RI's 40 days after, so
 * both are in the expiring list.
 */
export const CUR2_HEADER = [
  'bill_payer_account_id',
  'bill_billing_period_start_date',
  'line_item_usage_account_id',
  'line_item_line_item_type',
  'line_item_usage_start_date',
  'line_item_usage_end_date',
  'line_item_product_code',
  'line_item_usage_type',
  'line_item_usage_amount',
  'line_item_currency_code',
  'line_item_unblended_cost',
  'pricing_public_on_demand_cost',
  'pricing_unit',
  'savings_plan_savings_plan_a_r_n',
  'savings_plan_savings_plan_effective_cost',
  'savings_plan_total_commitment_to_date',
  'savings_plan_used_commitment',
  'savings_plan_purchase_term',
  'savings_plan_payment_option',
  'savings_plan_start_time',
  'savings_plan_end_time',
  'reservation_reservation_a_r_n',
  'reservation_effective_cost',
  'reservation_unused_quantity',
  'reservation_unused_amortized_upfront_fee_for_billing_period',
  'reservation_unused_recurring_fee',
  'pricing_lease_contract_length',
  'pricing_purchase_option',
  'reservation_start_time',
  'reservation_end_time',
] as const;
export type CurLine = Partial<Record<(typeof CUR2_HEADER)[number], string>>;

const hourAt = (day: string, h: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + h * 3_600_000).toISOString();

/** The common columns of one CUR line: an hour of `day` on an EC2 instance type, in USD. */
export function curBase(
  day: string,
  hour: number,
  type: string,
  account = '444455556666',
  payer = '111122223333',
): CurLine {
  return {
    bill_payer_account_id: payer,
    bill_billing_period_start_date: `${day.slice(0, 7)}-01T00:00:00Z`,
    line_item_usage_account_id: account,
    line_item_line_item_type: type,
    line_item_usage_start_date: hourAt(day, hour),
    line_item_usage_end_date: hourAt(day, hour + 1),
    line_item_product_code: 'AmazonEC2',
    line_item_usage_type: 'USE1-BoxUsage:m5.large',
    line_item_usage_amount: '1',
    line_item_currency_code: 'USD',
    pricing_unit: 'Hrs',
  };
}

/** RFC 4180 text of CUR lines under CUR2_HEADER (a cell is quoted when it needs to be). */
export function curCsv(lines: readonly CurLine[]): string {
  const cell = (v: string | undefined) =>
    v === undefined ? '' : /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
  return `${[CUR2_HEADER.join(','), ...lines.map((l) => CUR2_HEADER.map((h) => cell(l[h])).join(','))].join('\n')}\n`;
}

/** The marker of the demo's commitment seed in a state folder: `{seededAt, orgId, key, payer, from, until, lines}`. */
export const COMMITMENTS_SEED_FILE = 'demo-commitments.json';

/** The payer account of the demo's generated CUR (a source of its own: it replaces no other rows). */
export const DEMO_CUR_PAYER = '999900001111';
const DEMO_ACCOUNT = '999900002222';
export const DEMO_SP_ARN = `arn:aws:savingsplans::${DEMO_CUR_PAYER}:savingsplan/sp-demo-compute`;
export const DEMO_RI_ARN = `arn:aws:rds:us-east-1:${DEMO_CUR_PAYER}:ri:ri-demo-postgres`;

const DAY_MS = 86_400_000;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
const money = (v: number) => v.toFixed(6);

/** The generated lines of the days `[from, until]` (`YYYY-MM-DD`), terms ending after `now`. */
export function demoCommitmentLines(from: string, until: string, now: Date, seed = 30): CurLine[] {
  const rand = seededRandom(seed);
  const spEnd = `${ymd(now.getTime() + 80 * DAY_MS)}T23:59:59Z`;
  const riEnd = `${ymd(now.getTime() + 40 * DAY_MS)}T23:59:59Z`;
  const sp: CurLine = {
    savings_plan_savings_plan_a_r_n: DEMO_SP_ARN,
    savings_plan_purchase_term: '1yr',
    savings_plan_payment_option: 'Partial Upfront',
    savings_plan_start_time: `${ymd(Date.parse(spEnd) - 365 * DAY_MS)}T00:00:00Z`,
    savings_plan_end_time: spEnd,
  };
  const ri: CurLine = {
    reservation_reservation_a_r_n: DEMO_RI_ARN,
    pricing_lease_contract_length: '1yr',
    pricing_purchase_option: 'No Upfront',
    reservation_start_time: `${ymd(Date.parse(riEnd) - 365 * DAY_MS)}T00:00:00Z`,
    reservation_end_time: riEnd,
  };
  const base = (day: string, hour: number, type: string) =>
    curBase(day, hour, type, DEMO_ACCOUNT, DEMO_CUR_PAYER);
  const HOURLY = 3; // the Savings Plan's commitment, $/hour
  const SP_RATE = 0.72; // its price as a share of on-demand
  const out: CurLine[] = [];
  for (
    let t = Date.parse(`${from}T00:00:00Z`), i = 0;
    t <= Date.parse(`${until}T00:00:00Z`);
    t += DAY_MS, i++
  ) {
    const day = ymd(t);
    const weekend = [0, 6].includes(new Date(t).getUTCDay());
    // EC2 and Fargate usage the plan covers: the plan's day is used up to 100 %, less at weekends.
    const used = HOURLY * 24 * Math.min(1, (weekend ? 0.7 : 0.9) + rand() * 0.15);
    const parts: [string, string, number][] = [
      ['AmazonEC2', 'USE1-BoxUsage:m6i.xlarge', 0.75],
      ['AmazonECS', 'USE1-Fargate-vCPU-Hours:perCPU', 0.25],
    ];
    parts.forEach(([product, usageType, share], h) => {
      const eff = used * share;
      const od = money(eff / SP_RATE);
      out.push({
        ...base(day, h, 'SavingsPlanCoveredUsage'),
        ...sp,
        line_item_product_code: product,
        line_item_usage_type: usageType,
        line_item_usage_amount: '24',
        line_item_unblended_cost: od,
        pricing_public_on_demand_cost: od,
        savings_plan_savings_plan_effective_cost: money(eff),
      });
      out.push({
        ...base(day, h, 'SavingsPlanNegation'),
        ...sp,
        line_item_product_code: product,
        line_item_usage_type: usageType,
        line_item_unblended_cost: `-${od}`,
      });
    });
    out.push({
      ...base(day, 0, 'SavingsPlanRecurringFee'),
      ...sp,
      line_item_product_code: 'ComputeSavingsPlans',
      line_item_usage_type: 'ComputeSP:1yrPartialUpfront',
      line_item_unblended_cost: money(HOURLY * 24),
      savings_plan_total_commitment_to_date: money(HOURLY * 24),
      savings_plan_used_commitment: money(used),
    });
    // Two RDS instances reserved: 48 hours a day, one stopped for a while on some days.
    const riHours = rand() < 0.25 ? 48 - Math.round(4 + rand() * 12) : 48;
    out.push({
      ...base(day, 2, 'DiscountedUsage'),
      ...ri,
      line_item_product_code: 'AmazonRDS',
      line_item_usage_type: 'USE1-InstanceUsage:db.r6g.large',
      line_item_usage_amount: String(riHours),
      line_item_unblended_cost: '0',
      pricing_public_on_demand_cost: money(riHours * 0.26),
      reservation_effective_cost: money(riHours * 0.165),
    });
    out.push({
      ...base(day, 0, 'RIFee'),
      ...ri,
      line_item_product_code: 'AmazonRDS',
      line_item_usage_type: 'USE1-HeavyUsage:db.r6g.large',
      line_item_usage_amount: '48',
      line_item_unblended_cost: money(48 * 0.165),
      reservation_unused_quantity: String(48 - riHours),
      reservation_unused_amortized_upfront_fee_for_billing_period: '0',
      reservation_unused_recurring_fee: money((48 - riHours) * 0.165),
    });
    // On-demand instance hours no commitment covered (eligible), and storage (not eligible).
    const onDemand = (weekend ? 14 : 26) + rand() * 8;
    out.push({
      ...base(day, 3, 'Usage'),
      line_item_usage_type: 'USE1-BoxUsage:c6i.2xlarge',
      line_item_usage_amount: money(onDemand / 0.34),
      line_item_unblended_cost: money(onDemand),
      pricing_public_on_demand_cost: money(onDemand),
    });
    out.push({
      ...base(day, 0, 'Usage'),
      line_item_usage_type: 'USE1-EBS:VolumeUsage.gp3',
      pricing_unit: 'GB-Mo',
      line_item_usage_amount: '2400',
      line_item_unblended_cost: '6.4',
      pricing_public_on_demand_cost: '6.4',
    });
    if (i === 0)
      out.push({ ...base(day, 0, 'SavingsPlanUpfrontFee'), ...sp, line_item_unblended_cost: '13140' });
  }
  return out;
}
