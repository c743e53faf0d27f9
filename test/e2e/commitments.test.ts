import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LevelOutcome as Level } from '../../shared/domain/commitments/simulation';
import { type CsvRow, close, num, parseCsv } from '../integration/warehouse/support';
import { ingestOk } from '../support/cli';
import {
  AZURE_HEADER,
  azureCommitmentLines,
  CUR2_HEADER,
  csvText,
  curCommitmentLines,
  curHourlyLines,
  gcpCommitmentLines,
  gcpJsonLines,
  RI_ARN,
  SP_ARN,
} from '../support/commitment-exports';
import { freshOrg } from '../support/fresh-org';
import { api } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';
import { DAY_MS, suiteIds, ymd } from '../support/suite';

/**
 * GET /commitments, /commitments/summary and /commitments/expiring on the local stack, for a new
 * organisation holding a generated AWS CUR 2.0, an Azure EA export in EUR and a Google Cloud export
 * with every commitment line type. Every figure is computed IN THIS TEST from the raw files by the
 * providers' documented meaning of each line (docs/commitments.md), the Azure amounts converted by
 * hand at each charge day's seeded USD-per-EUR rate.
 */
const { run, orgId } = suiteIds('cmt');
const now = new Date();
const today = ymd(now.getTime());
const lastMonth = ymd(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 10));
const DAYS = [0, 1, 2].map((i) => ymd(Date.parse(`${lastMonth}T00:00:00Z`) + i * DAY_MS));
const SP_END = `${ymd(now.getTime() + 20 * DAY_MS)}T23:59:59Z`;
const RI_END = `${ymd(now.getTime() + 75 * DAY_MS)}T23:59:59Z`;
const PERIOD = `startDate=${DAYS[0]}&endDate=${DAYS[2]}`;

let token = '';
let otherToken = '';
let cur: CsvRow[] = [];
let azure: CsvRow[] = [];
const gcp = gcpCommitmentLines(DAYS);
let usdPerEur = new Map<string, number>();
let simToken = '';
let hourly: CsvRow[] = [];
const SIM_START = '2025-03-03';
const SIM_HOURS = 8 * 24;
const PLAN_RATE = 0.72;
/** On-demand dollars of hour `h`: a day/night pattern, a weekend dip, idle hours on the fourth night. */
const simUsage = (h: number) => {
  const hour = h % 24;
  const day = Math.floor(h / 24);
  if (day === 3 && hour < 5) return 0;
  return (hour >= 8 && hour < 20 ? 9 : 3.5) * (day >= 5 ? 0.6 : 1) + ((h * 13) % 7) / 10;
};

interface Expected {
  provider: string;
  used: number;
  unused: number;
  onDemand: number;
}

/** Each commitment's used, unused and on-demand cost, summed from the raw lines. */
function expectedCommitments(): Map<string, Expected> {
  const out = new Map<string, Expected>();
  const add = (id: string, provider: string, f: Partial<Expected>) => {
    const e = out.get(id) ?? { provider, used: 0, unused: 0, onDemand: 0 };
    e.used += f.used ?? 0;
    e.unused += f.unused ?? 0;
    e.onDemand += f.onDemand ?? 0;
    out.set(id, e);
  };
  for (const r of cur) {
    const type = r.line_item_line_item_type;
    const id = r.savings_plan_savings_plan_a_r_n ?? r.reservation_reservation_a_r_n;
    if (!id) continue;
    if (type === 'SavingsPlanCoveredUsage')
      add(id, 'AWS', {
        used: num(r.savings_plan_savings_plan_effective_cost),
        onDemand: num(r.pricing_public_on_demand_cost),
      });
    if (type === 'DiscountedUsage')
      add(id, 'AWS', {
        used: num(r.reservation_effective_cost),
        onDemand: num(r.pricing_public_on_demand_cost),
      });
    if (type === 'SavingsPlanRecurringFee')
      add(id, 'AWS', {
        unused: num(r.savings_plan_total_commitment_to_date) - num(r.savings_plan_used_commitment),
      });
    if (type === 'RIFee')
      add(id, 'AWS', {
        unused:
          num(r.reservation_unused_amortized_upfront_fee_for_billing_period) +
          num(r.reservation_unused_recurring_fee),
      });
  }
  for (const r of azure) {
    const id = r.ReservationId ?? r.benefitId;
    if (!id) continue;
    const [m, d, y] = String(r.Date).split('/');
    const day = `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
    const usd = (eur: number) => eur * rateOn(usdPerEur, day);
    if (r.ChargeType === 'Usage')
      add(id, 'Microsoft', {
        used: usd(num(r.CostInBillingCurrency)),
        onDemand: usd(num(r.PayGPrice) * num(r.Quantity)),
      });
    if (r.ChargeType === 'UnusedReservation' || r.ChargeType === 'UnusedSavingsPlan')
      add(id, 'Microsoft', { unused: usd(num(r.CostInBillingCurrency)) });
  }
  // Google Cloud: per pool and day, the fee is used up to the on-demand value its credits covered.
  const pools = new Map<string, { fee: number; credit: number }>();
  for (const l of gcp) {
    const pool = (spend: boolean) => `${l.service[0]}/${spend ? 'spend' : 'resource'}/${l.region}`;
    const at = (id: string) => {
      const k = `${id}|${l.day}`;
      const p = pools.get(k) ?? { fee: 0, credit: 0 };
      pools.set(k, p);
      return p;
    };
    if (l.sku.startsWith('Commitment')) at(pool(l.sku.includes('dollar based'))).fee += l.cost;
    for (const c of l.credits)
      if (c.type.startsWith('COMMITTED_USAGE_DISCOUNT'))
        at(pool(c.type.endsWith('DOLLAR_BASE'))).credit -= c.amount;
  }
  for (const [k, p] of pools) {
    const used = Math.min(p.fee, p.credit);
    add(k.split('|')[0]!, 'Google Cloud', { used, unused: p.fee - used, onDemand: p.credit });
  }
  return out;
}

/** Eligible usage at on-demand prices per provider: uncovered eligible lines plus the covered ones. */
function expectedEligible(commitments: Map<string, Expected>): Map<string, number> {
  const out = new Map<string, number>();
  const add = (p: string, v: number) => out.set(p, (out.get(p) ?? 0) + v);
  for (const r of cur)
    if (r.line_item_line_item_type === 'Usage' && String(r.line_item_usage_type).includes('BoxUsage'))
      add('AWS', num(r.pricing_public_on_demand_cost));
  for (const r of azure)
    if (r.PricingModel === 'OnDemand' && r.MeterCategory === 'Virtual Machines') {
      const [m, d, y] = String(r.Date).split('/');
      const day = `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
      add('Microsoft', num(r.PayGPrice) * num(r.Quantity) * rateOn(usdPerEur, day));
    }
  // Google Cloud: every hour-priced Compute Engine or Cloud SQL line (the covered ones included).
  for (const l of gcp)
    if (!l.sku.startsWith('Commitment') && l.pricingUnit === 'hour') add('Google Cloud', l.cost);
  for (const e of commitments.values()) if (e.provider !== 'Google Cloud') add(e.provider, e.onDemand);
  return out;
}

function expectClose(what: string, actual: number | null | undefined, expected: number) {
  const a = actual ?? Number.NaN;
  if (!close(a, expected, 1e-9)) throw new Error(`${what}: got ${actual}, expected ${expected}`);
}

beforeAll(async () => {
  token = await freshOrg(orgId, `user_cmt${run}`, `commitments ${run}`);
  otherToken = await freshOrg(`${orgId}b`, `user_cmt${run}b`, `commitments other ${run}`);
  usdPerEur = seedUsdPerEur();
  const dir = mkdtempSync(join(tmpdir(), 'commitments-e2e-'));
  const curText = csvText(CUR2_HEADER, curCommitmentLines(DAYS, SP_END, RI_END));
  const azureText = csvText(AZURE_HEADER, azureCommitmentLines(DAYS));
  cur = parseCsv(curText);
  azure = parseCsv(azureText);
  const files = { 'cur2.csv': curText, 'azure.csv': azureText, 'gcp.jsonl': gcpJsonLines(gcp) };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    ingestOk(orgId, join(dir, name));
  }
  simToken = await freshOrg(`${orgId}s`, `user_cmt${run}s`, `commitments simulation ${run}`);
  const hourlyText = csvText(CUR2_HEADER, curHourlyLines(SIM_START, SIM_HOURS, simUsage, PLAN_RATE));
  hourly = parseCsv(hourlyText);
  writeFileSync(join(dir, 'hourly.csv'), hourlyText);
  ingestOk(`${orgId}s`, join(dir, 'hourly.csv'));
}, 900_000);

interface Item {
  id: string;
  provider: string;
  type: string;
  category: string;
  term: string | null;
  end: string | null;
  commitmentCost: number;
  usedCost: number;
  unusedCost: number;
  onDemandCost: number;
  utilization: number | null;
  savings: number;
  effectiveSavingsRate: number | null;
}

describe('GET /commitments', () => {
  it('lists each commitment with its terms and, for the period, the figures summed from the raw lines', async () => {
    const res = await api<{ currency: string; conversion: { from: string[] } | null; items: Item[] }>(
      'GET',
      `/commitments?${PERIOD}`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('USD');
    expect(res.body.conversion?.from).toEqual(['EUR']);
    const expected = expectedCommitments();
    expect(res.body.items.map((i) => i.id).sort()).toEqual([...expected.keys()].sort());
    for (const item of res.body.items) {
      const e = expected.get(item.id)!;
      const cost = e.used + e.unused;
      expect(item.provider).toBe(e.provider);
      expectClose(`${item.id} used`, item.usedCost, e.used);
      expectClose(`${item.id} unused`, item.unusedCost, e.unused);
      expectClose(`${item.id} cost`, item.commitmentCost, cost);
      expectClose(`${item.id} on-demand`, item.onDemandCost, e.onDemand);
      expectClose(`${item.id} utilisation`, item.utilization, e.used / cost);
      expectClose(`${item.id} savings`, item.savings, e.onDemand - cost);
      expectClose(`${item.id} ESR`, item.effectiveSavingsRate, (e.onDemand - cost) / e.onDemand);
    }
    const sp = res.body.items.find((i) => i.id === SP_ARN)!;
    expect([sp.type, sp.category, sp.term, sp.end]).toEqual(['Savings Plan', 'Spend', '1yr', SP_END]);
    const ri = res.body.items.find((i) => i.id === RI_ARN)!;
    expect([ri.type, ri.category, ri.term]).toEqual(['Reservation', 'Usage', '3yr']);
    expect(res.body.items.find((i) => i.id === 'r-1')?.term).toBe('1 Year');
  });

  it("names none of another organisation's commitments", async () => {
    const res = await api<{ items: Item[] }>('GET', `/commitments?${PERIOD}`, { token: otherToken });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
  });

  it('refuses a malformed period with a 400 in the spec shape, and a caller without a credential with a 401', async () => {
    const bad = await api<{ error: string }>('GET', '/commitments?startDate=yesterday', { token });
    expect(bad.status).toBe(400);
    expect(typeof bad.body.error).toBe('string');
    expect((await api('GET', '/commitments')).status).toBe(401);
  });
});

interface SummaryRow {
  date: string;
  group: string | null;
  commitmentCost: number;
  usedCost: number;
  unusedCost: number;
  coveredOnDemandCost: number;
  eligibleOnDemandCost: number;
  utilization: number | null;
  coverage: number | null;
  savings: number;
  effectiveSavingsRate: number | null;
}

describe('GET /commitments/summary', () => {
  it('by provider: utilisation, coverage, unused cost and savings rate from the raw lines', async () => {
    const res = await api<{ rows: SummaryRow[]; total: SummaryRow }>(
      'GET',
      `/commitments/summary?${PERIOD}&groupBy=provider&granularity=MONTH`,
      { token },
    );
    expect(res.status).toBe(200);
    const commitments = expectedCommitments();
    const eligible = expectedEligible(commitments);
    expect(res.body.rows.map((r) => r.group).sort()).toEqual(['AWS', 'Google Cloud', 'Microsoft']);
    for (const row of res.body.rows) {
      expect(row.date).toBe(`${DAYS[0]!.slice(0, 7)}-01`);
      const mine = [...commitments.values()].filter((e) => e.provider === row.group);
      const used = mine.reduce((s, e) => s + e.used, 0);
      const unused = mine.reduce((s, e) => s + e.unused, 0);
      const covered = mine.reduce((s, e) => s + e.onDemand, 0);
      const all = eligible.get(row.group!)!;
      expectClose(`${row.group} used`, row.usedCost, used);
      expectClose(`${row.group} unused`, row.unusedCost, unused);
      expectClose(`${row.group} utilisation`, row.utilization, used / (used + unused));
      expectClose(`${row.group} eligible`, row.eligibleOnDemandCost, all);
      expectClose(`${row.group} coverage`, row.coverage, covered / all);
      expectClose(`${row.group} ESR`, row.effectiveSavingsRate, (covered - used - unused) / all);
    }
  });

  it('per day without a group adds up to the total; by type the coverage is null', async () => {
    const daily = await api<{ rows: SummaryRow[]; total: SummaryRow }>(
      'GET',
      `/commitments/summary?${PERIOD}&granularity=DAY`,
      { token },
    );
    expect(daily.status).toBe(200);
    expect(daily.body.rows.map((r) => r.date)).toEqual(DAYS);
    const sum = (k: keyof SummaryRow) => daily.body.rows.reduce((s, r) => s + Number(r[k]), 0);
    for (const k of ['commitmentCost', 'unusedCost', 'coveredOnDemandCost', 'eligibleOnDemandCost'] as const)
      expectClose(k, daily.body.total[k] as number, sum(k));
    const byType = await api<{ rows: SummaryRow[] }>('GET', `/commitments/summary?${PERIOD}&groupBy=type`, {
      token,
    });
    expect(byType.status).toBe(200);
    expect(byType.body.rows.every((r) => r.coverage === null)).toBe(true);
  });

  it('refuses an unknown groupBy or granularity with a 400', async () => {
    for (const q of ['groupBy=region', 'granularity=HOUR']) {
      const res = await api<{ error: string }>('GET', `/commitments/summary?${q}`, { token });
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expect(typeof res.body.error).toBe('string');
    }
  });
});

describe('GET /commitments/expiring', () => {
  it('lists the commitments ending within 30, 60 or 90 days, soonest first', async () => {
    const ids = async (d: number) => {
      const res = await api<{ today: string; items: { id: string; daysLeft: number }[] }>(
        'GET',
        `/commitments/expiring?withinDays=${d}`,
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.body.today).toBe(today);
      return res.body.items.map((i) => [i.id, i.daysLeft]);
    };
    expect(await ids(30)).toEqual([[SP_ARN, 20]]);
    expect(await ids(60)).toEqual([[SP_ARN, 20]]);
    expect(await ids(90)).toEqual([
      [SP_ARN, 20],
      [RI_ARN, 75],
    ]);
    const other = await api<{ items: unknown[] }>('GET', '/commitments/expiring?withinDays=90', {
      token: otherToken,
    });
    expect(other.body.items).toEqual([]);
  });

  it('refuses another window with a 400', async () => {
    const res = await api<{ error: string }>('GET', '/commitments/expiring?withinDays=45', { token });
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
  });
});

interface Sim {
  lookback: { startDate: string; endDate: string; hours: number };
  rate: { discount: number; source: string };
  curve: Level[];
  recommended: Level | null;
}

/**
 * Each of the 50 levels (evenly spaced up to the busiest hour at plan rates) computed here hour by
 * hour from `usage` (on-demand cost per hour of the lookback), All Upfront over `months`; the
 * recommended level is the one of the largest positive net savings.
 */
function expectCurve(sim: Sim, usage: number[], discount: number, months: number): void {
  const hours = usage.length;
  const peak = Math.max(...usage) * (1 - discount);
  expect(sim.curve).toHaveLength(50);
  let best: Level | null = null;
  sim.curve.forEach((level, i) => {
    const L = (peak * (i + 1)) / 50;
    expectClose(`level ${i}`, level.hourlyCommitment, L);
    let covered = 0;
    for (const u of usage) covered += Math.min(u, L / (1 - discount));
    const total = usage.reduce((a, b) => a + b, 0);
    const net = covered - L * hours;
    expectClose(`utilisation ${i}`, level.utilization, (covered * (1 - discount)) / (L * hours));
    expectClose(`coverage ${i}`, level.coverage, covered / total);
    expectClose(`net savings ${i}`, level.netSavings, net);
    // All Upfront: the term's commitment at month 0, paid back by the avoided on-demand cost.
    const perMonth = (covered / hours) * 730;
    let month: number | null = null;
    for (let m = 1; m <= months && month === null; m++) if (m * perMonth >= L * 730 * months) month = m;
    expect({ i, month: level.breakEvenMonth }).toEqual({ i, month });
    if (net > 0 && (!best || net > best.netSavings)) best = level;
  });
  expect(sim.recommended).toEqual(best);
}

/**
 * POST /commitments/simulate for a 7-day, All Upfront lookback: expects a 200 whose lookback is
 * the 7 days up to `lastDay` (the last charge day), and returns the response and the lookback's
 * first hour (epoch ms).
 */
async function simulateWeek(auth: string, provider: string, term: string, lastDay: string) {
  const res = await api<Sim>('POST', '/commitments/simulate', {
    token: auth,
    body: { provider, lookbackDays: 7, term, paymentOption: 'All Upfront' },
  });
  expect(res.status).toBe(200);
  const first = Date.parse(`${lastDay}T00:00:00Z`) - 6 * DAY_MS;
  expect(res.body.lookback).toEqual({ startDate: ymd(first), endDate: lastDay, hours: 168 });
  return { res, first };
}

describe('POST /commitments/simulate', () => {
  it('AWS, 7-day lookback: every level of the curve and the recommended one, computed here hour by hour from the raw lines', async () => {
    const lastDay = ymd(Date.parse(`${SIM_START}T00:00:00Z`) + (SIM_HOURS / 24 - 1) * DAY_MS);
    const { res, first } = await simulateWeek(simToken, 'AWS', '1yr', lastDay);
    // The plan's rate: its covered lines' effective cost over their on-demand cost.
    let planCost = 0;
    let onDemand = 0;
    const usage = new Array<number>(168).fill(0);
    for (const r of hourly) {
      if (r.line_item_line_item_type === 'SavingsPlanCoveredUsage') {
        planCost += num(r.savings_plan_savings_plan_effective_cost);
        onDemand += num(r.pricing_public_on_demand_cost);
      }
      const h = (Date.parse(String(r.line_item_usage_start_date)) - first) / 3_600_000;
      if (r.line_item_line_item_type === 'Usage' && h >= 0 && h < 168)
        usage[h]! += num(r.pricing_public_on_demand_cost);
    }
    const discount = 1 - planCost / onDemand;
    expect(res.body.rate.source).toBe('export');
    expectClose('discount', res.body.rate.discount, discount);
    expectCurve(res.body, usage, discount, 12);
    expect(res.body.recommended).not.toBeNull();
    expect(res.body.recommended!.utilization).toBeLessThan(1);
  });

  it('Azure, from its daily export in EUR: the savings plan rate and usage converted per charge day, each level as computed here', async () => {
    // The organisation's last charge day is the exports' last day.
    const { res, first } = await simulateWeek(token, 'Microsoft', '3yr', DAYS[2]!);
    let planCost = 0;
    let onDemand = 0;
    const usage = new Array<number>(168).fill(0);
    for (const r of azure) {
      const [m, d, y] = String(r.Date).split('/');
      const day = `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
      const usd = (eur: number) => eur * rateOn(usdPerEur, day);
      if (r.ChargeType === 'Usage' && r.PricingModel === 'SavingsPlan') {
        planCost += usd(num(r.CostInBillingCurrency));
        onDemand += usd(num(r.PayGPrice) * num(r.Quantity));
      }
      // A daily export: the day's usage spread evenly over its 24 hours.
      if (r.ChargeType === 'Usage' && r.PricingModel === 'OnDemand' && r.MeterCategory === 'Virtual Machines')
        for (let k = 0; k < 24; k++)
          usage[(Date.parse(`${day}T00:00:00Z`) - first) / 3_600_000 + k]! +=
            usd(num(r.PayGPrice) * num(r.Quantity)) / 24;
    }
    const discount = 1 - planCost / onDemand;
    expectClose('discount', res.body.rate.discount, discount);
    expectCurve(res.body, usage, discount, 36);
  });

  it('Google Cloud, spend-based CUDs: the rate from their fees and credits, usage net of every CUD credit, each level as computed here', async () => {
    const { res, first } = await simulateWeek(token, 'Google Cloud', '1yr', DAYS[2]!);
    // The plan: the spend-based ("dollar based") commitment fees against the credits they gave.
    let fees = 0;
    let credited = 0;
    const usage = new Array<number>(168).fill(0);
    for (const l of gcp) {
      if (l.sku.startsWith('Commitment - dollar based')) fees += l.cost;
      const cud = l.credits.filter((c) => c.type.startsWith('COMMITTED_USAGE_DISCOUNT'));
      credited -= cud
        .filter((c) => c.type === 'COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE')
        .reduce((a, c) => a + c.amount, 0);
      // Eligible: hourly-priced usage of a CUD service, less what any CUD covered of it (the
      // sustained use discount is not a commitment); every line starts at midnight, so each
      // day's amount is spread over its 24 hours.
      if (!l.sku.startsWith('Commitment') && l.pricingUnit === 'hour') {
        const uncovered = l.cost + cud.reduce((a, c) => a + c.amount, 0);
        const h0 = (Date.parse(`${l.day}T00:00:00Z`) - first) / 3_600_000;
        for (let k = 0; k < 24; k++) usage[h0 + k]! += uncovered / 24;
      }
    }
    const discount = 1 - fees / credited;
    expect(res.body.rate.source).toBe('export');
    expectClose('discount', res.body.rate.discount, discount);
    expect(discount).toBeGreaterThan(0);
    expectCurve(res.body, usage, discount, 12);
  });

  it('refuses a lookback other than 7, 30 or 60 days with a 400, and a provider without savings-plan usage with a 422', async () => {
    const bad = await api<{ error: string }>('POST', '/commitments/simulate', {
      token: simToken,
      body: { provider: 'AWS', lookbackDays: 10 },
    });
    expect(bad.status).toBe(400);
    expect(typeof bad.body.error).toBe('string');
    const none = await api<{ error: string }>('POST', '/commitments/simulate', {
      token: simToken,
      body: { provider: 'Microsoft', lookbackDays: 30 },
    });
    expect(none.status).toBe(422);
    expect(typeof none.body.error).toBe('string');
    // Another organisation has none of this one's usage to simulate from.
    const other = await api('POST', '/commitments/simulate', {
      token: otherToken,
      body: { provider: 'AWS', lookbackDays: 7 },
    });
    expect(other.status).toBe(422);
  });
});
