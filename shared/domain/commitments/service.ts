import type { Principal } from '../../auth/principal';
import { getOrganizationReportingCurrency, getOrganizationTimezone } from '../../db/organizations-repo';
import type { DatePreset } from '../../enums';
import { UnprocessableError } from '../../errors';
import type { ConversionOut } from '../../model/conversion';
import { getWarehouseQueries } from '../../warehouse/queries';
import type { CommitmentDimension, CommitmentFact, CommitmentTerms } from '../../warehouse/sql/commitments';
import type { CurrencyConversion } from '../../warehouse/warehouse-query';
import { planConversion } from '../queries/conversion';
import { addMonths, DAY_MS, dayMs, resolvePeriod, ymd } from '../queries/period';
import { eligibleClause } from './eligibility';
import { type Amounts, addInto, bucketOf, factAmounts, type Rates, ratesOf, zero } from './figures';
import {
  HOURS_PER_MONTH,
  type LevelOutcome,
  levelsUpTo,
  type PaymentOption,
  type SimulatedProvider,
  simulate,
  type Term,
} from './simulation';

/** The period of a commitments request: the explorer's preset or start/end dates. */
export interface PeriodQuery {
  datePreset?: DatePreset;
  startDate?: string;
  endDate?: string;
}

export interface Money {
  currency: string;
  conversion: ConversionOut | null;
  plan?: CurrencyConversion;
  dataThrough: string | null;
}

/**
 * Amounts in `target`, by default the organisation's reporting currency: the billing currencies of
 * `[start, end)` (and a month either side) other than it are converted at their per-day factors, as
 * the explorer does (docs/currency.md); a missing rate is a 422 naming the currency and the day.
 */
export async function moneyFor(orgId: string, start: number, end: number, target?: string): Promise<Money> {
  const wh = await getWarehouseQueries();
  const since = ymd(addMonths(dayMs(ymd(start)), -1)).slice(0, 7);
  const [currency, info] = await Promise.all([
    target ?? getOrganizationReportingCurrency(orgId),
    wh.billingInfo(orgId, since),
  ]);
  const sources = info.currencies.filter((c) => c !== currency);
  if (!sources.length) return { currency, conversion: null, dataThrough: info.lastChargeDay };
  const { conversion, out } = await planConversion(
    sources,
    currency,
    ymd(start),
    ymd(Math.ceil(end / DAY_MS) * DAY_MS),
    info.lastChargeDay,
  );
  return { currency, conversion: out.rates ? out : null, plan: conversion, dataThrough: info.lastChargeDay };
}

async function periodOf(orgId: string, q: PeriodQuery, now: Date) {
  const timeZone = (await getOrganizationTimezone(orgId)) ?? 'UTC';
  const p = resolvePeriod(
    {
      aggBy: 'Day',
      datePreset: q.datePreset ?? null,
      startDate: q.startDate ?? null,
      endDate: q.endDate ?? null,
    },
    { now, timeZone },
  );
  return { start: p.start, end: p.end, timeZone };
}

/** The commitment facts of `[start, end)` in the money's currency, grouped by `groupBy`. */
export async function facts(
  orgId: string,
  start: number,
  end: number,
  groupBy: readonly CommitmentDimension[],
  grain: 'day' | 'hour',
  money: Money,
): Promise<CommitmentFact[]> {
  const wh = await getWarehouseQueries();
  return wh.commitmentFacts({
    orgId,
    start: ymd(start),
    end: ymd(end),
    grain,
    groupBy,
    eligible: eligibleClause(),
    ...(money.plan ? { conversion: money.plan } : {}),
  });
}

export interface InventoryItem
  extends Omit<CommitmentTerms, 'firstDay' | 'lastDay'>,
    Omit<Rates, 'coverage'> {
  commitmentCost: number;
  usedCost: number;
  unusedCost: number;
  onDemandCost: number;
}

export interface Inventory {
  period: { startDate: string; endDate: string };
  currency: string;
  conversion: ConversionOut | null;
  dataThrough: string | null;
  items: InventoryItem[];
}

/**
 * GET /commitments: every commitment with lines in the period, its terms and its figures for the
 * period, costliest first.
 */
export async function commitmentInventory(
  principal: Principal,
  q: PeriodQuery,
  now = new Date(),
): Promise<Inventory> {
  const orgId = principal.orgId;
  const { start, end } = await periodOf(orgId, q, now);
  const money = await moneyFor(orgId, start, end);
  const wh = await getWarehouseQueries();
  const [rows, terms] = await Promise.all([
    facts(orgId, start, end, [], 'day', money),
    wh.commitmentTerms(orgId, { start: ymd(start), end: ymd(end) }),
  ]);
  const byId = amountsBy(rows, (fact) => fact.commitmentId || undefined);
  const items = terms.map(({ firstDay: _f, lastDay: _l, ...t }) => {
    const a = byId.get(t.id) ?? zero();
    const { coverage: _c, ...rates } = ratesOf(a, 'onDemand');
    return {
      ...t,
      commitmentCost: a.cost,
      usedCost: a.used,
      unusedCost: a.unused,
      onDemandCost: a.onDemand,
      ...rates,
    };
  });
  items.sort((a, b) => b.commitmentCost - a.commitmentCost || a.id.localeCompare(b.id));
  return {
    period: { startDate: ymd(start), endDate: ymd(end - DAY_MS) },
    currency: money.currency,
    conversion: money.conversion,
    dataThrough: money.dataThrough,
    items,
  };
}

export type SummaryGroupBy = CommitmentDimension;
export type SummaryGranularity = 'DAY' | 'WEEK' | 'MONTH';

export interface SummaryFigures extends Rates {
  commitmentCost: number;
  usedCost: number;
  unusedCost: number;
  coveredOnDemandCost: number;
  eligibleOnDemandCost: number;
}

export interface Summary {
  period: { startDate: string; endDate: string };
  granularity: SummaryGranularity;
  groupBy: SummaryGroupBy | null;
  currency: string;
  conversion: ConversionOut | null;
  dataThrough: string | null;
  rows: ({ date: string; group: string | null } & SummaryFigures)[];
  total: SummaryFigures;
}

/**
 * The summary's figures of summed amounts: the one definition behind GET /commitments/summary and
 * the commitment metrics of the query model (`metrics.ts`). `coverage` false (facts grouped by
 * commitment type, which eligible usage has none of) makes coverage and the savings rate null.
 */
export function summaryFigures(a: Amounts, coverage: boolean): SummaryFigures {
  const rates = ratesOf(a, 'eligible');
  return {
    commitmentCost: a.cost,
    usedCost: a.used,
    unusedCost: a.unused,
    coveredOnDemandCost: a.onDemand,
    eligibleOnDemandCost: coverage ? a.eligible : 0,
    ...rates,
    ...(coverage ? {} : { coverage: null, effectiveSavingsRate: null }),
  };
}

/**
 * GET /commitments/summary: utilisation, coverage, unused cost and effective savings rate per
 * day, week or month, by provider, account, type or service (or in total). Coverage and the
 * savings rate need the eligible usage, which has no commitment type: by type they are null.
 */
export async function commitmentSummary(
  principal: Principal,
  q: PeriodQuery & { groupBy?: SummaryGroupBy; granularity?: SummaryGranularity },
  now = new Date(),
): Promise<Summary> {
  const orgId = principal.orgId;
  const granularity = q.granularity ?? 'DAY';
  const { start, end } = await periodOf(orgId, q, now);
  const money = await moneyFor(orgId, start, end);
  const rows = await facts(orgId, start, end, q.groupBy ? [q.groupBy] : [], 'day', money);
  return {
    period: { startDate: ymd(start), endDate: ymd(end - DAY_MS) },
    granularity,
    groupBy: q.groupBy ?? null,
    currency: money.currency,
    conversion: money.conversion,
    dataThrough: money.dataThrough,
    ...summarise(rows, q.groupBy ?? null, granularity),
  };
}

/** The summary's rows (per bucket and group, in order) and total from day facts grouped by `groupBy`. */
export function summarise(
  rows: readonly CommitmentFact[],
  groupBy: SummaryGroupBy | null,
  granularity: SummaryGranularity,
): Pick<Summary, 'rows' | 'total'> {
  const cells = amountsBy(rows, (fact) =>
    JSON.stringify([bucketOf(fact.bucket, granularity), groupBy ? (fact.group[groupBy] ?? '') : null]),
  );
  const total = zero();
  for (const a of cells.values()) addInto(total, a);
  const coverage = groupBy !== 'type';
  return {
    rows: [...cells.entries()]
      .map(([k, a]) => {
        const [date, group] = JSON.parse(k) as [string, string | null];
        return { date, group, a };
      })
      .sort((a, b) => a.date.localeCompare(b.date) || (a.group ?? '').localeCompare(b.group ?? ''))
      .map((c) => ({ date: c.date, group: c.group, ...summaryFigures(c.a, coverage) })),
    total: summaryFigures(total, coverage),
  };
}

/**
 * Facts summed into cells keyed by `keyOf` (undefined: left out), the credit-style clamp applied
 * per day across every fact first (`factAmounts`): how the summary and the commitment metrics sum.
 */
export function amountsBy(
  rows: readonly CommitmentFact[],
  keyOf: (fact: CommitmentFact) => string | undefined,
): Map<string, Amounts> {
  const cells = new Map<string, Amounts>();
  for (const { fact, amounts } of factAmounts(rows)) {
    const k = keyOf(fact);
    if (k === undefined) continue;
    const a = cells.get(k) ?? zero();
    addInto(a, amounts);
    cells.set(k, a);
  }
  return cells;
}

/** What the simulation's hourly facts are grouped by. */
export const SIMULATION_GROUPS: readonly CommitmentDimension[] = ['provider', 'type', 'category'];

/**
 * How each provider's spend-based plan shows in its facts (docs/commitments.md, "Simulator"):
 * which commitments are the plan whose rate is read, its cost and the on-demand value it covered,
 * and whether the usage it covered is among the eligible lines (Google Cloud: the covered usage
 * lines name no commitment; the CUD credits on them say how much of each was covered).
 */
const PLAN_RULES: Record<
  SimulatedProvider,
  {
    name: string;
    isPlan: (f: CommitmentFact) => boolean;
    cost: (f: CommitmentFact) => number;
    covered: (f: CommitmentFact) => number;
    coveredInEligible: boolean;
  }
> = {
  AWS: {
    name: 'Savings Plan',
    isPlan: (f) => f.group.type === 'Savings Plan',
    cost: (f) => f.used,
    covered: (f) => f.coveredList,
    coveredInEligible: false,
  },
  Microsoft: {
    name: 'savings plan',
    isPlan: (f) => f.group.type === 'Savings Plan',
    cost: (f) => f.used,
    covered: (f) => f.coveredList,
    coveredInEligible: false,
  },
  'Google Cloud': {
    name: 'spend-based committed use discount',
    isPlan: (f) => f.group.category === 'Spend',
    // The fee the commitment bills, against the on-demand value its credits covered.
    cost: (f) => f.fee + f.used,
    covered: (f) => f.credit,
    coveredInEligible: true,
  },
};

/**
 * From hourly facts grouped by SIMULATION_GROUPS: the provider's uncovered eligible usage per hour
 * of `[start, start + hours)` (0 where none), and its spend-based plans' cost and the on-demand
 * cost they covered (the rate). Where the covered usage is among the eligible lines (Google
 * Cloud), every commitment's credits of the hour are taken off it.
 */
export function hourlyUsage(
  rows: readonly CommitmentFact[],
  provider: SimulatedProvider,
  start: number,
  hours: number,
): { usage: number[]; planCost: number; onDemandCost: number } {
  const rule = PLAN_RULES[provider];
  const usage = new Array<number>(hours).fill(0);
  let planCost = 0;
  let onDemandCost = 0;
  let daily = true;
  for (const f of rows) {
    if (f.group.provider !== provider) continue;
    const h = Math.floor((Date.parse(f.bucket) - start) / 3_600_000);
    const inLookback = h >= 0 && h < hours;
    if (!f.commitmentId) {
      if (!inLookback) continue;
      usage[h]! += f.eligibleList;
      if (h % 24 !== 0) daily = false;
      continue;
    }
    if (rule.coveredInEligible && inLookback) usage[h]! -= f.credit;
    if (rule.isPlan(f)) {
      planCost += rule.cost(f);
      onDemandCost += rule.covered(f);
    }
  }
  for (let h = 0; h < hours; h++) if ((usage[h] as number) < 0) usage[h] = 0;
  if (daily) spreadDays(usage);
  return { usage, planCost, onDemandCost };
}

/**
 * A daily export (Azure's: every charge period is a day, so all usage starts at midnight): each
 * day's usage spread evenly over its 24 hours, not lumped into its first hour, which would make a
 * plan look unused 23 hours a day. An approximation (docs/commitments.md): the hours of a day are
 * not known, so a plan sized to a day's mean hour is what the simulation sees.
 */
function spreadDays(usage: number[]): void {
  for (let d = 0; d + 24 <= usage.length; d += 24) {
    const share = (usage[d] ?? 0) / 24;
    for (let h = d; h < d + 24; h++) usage[h] = share;
  }
}

export interface SimulateInput {
  provider: SimulatedProvider;
  lookbackDays: 7 | 30 | 60;
  term: Term;
  paymentOption: PaymentOption;
  levels?: number;
  discountRate?: number;
}

export interface Simulation {
  provider: string;
  lookback: { startDate: string; endDate: string; hours: number };
  term: Term;
  paymentOption: PaymentOption;
  currency: string;
  conversion: ConversionOut | null;
  rate: { discount: number; source: 'export' | 'request'; planCost: number; onDemandCost: number };
  eligibleOnDemandCost: number;
  hoursPerMonth: number;
  curve: LevelOutcome[];
  recommended: LevelOutcome | null;
}

/**
 * POST /commitments/simulate: a savings plan for the provider at levels of $/hour, over the hourly
 * eligible on-demand usage no commitment covered in the `lookbackDays` days up to the last charge
 * day. The plan's discount is the export's own: 1 − EffectiveCost ÷ ListCost of the provider's
 * Savings Plan usage in the lookback (AWS: `SavingsPlanEffectiveCost` ÷ `pricing/publicOnDemandCost`;
 * Azure: the cost ÷ `PayGPrice × Quantity`; Google Cloud: the spend-based CUD fees ÷ their credits),
 * unless the request gives `discountRate`.
 */
export async function simulateSavingsPlan(principal: Principal, input: SimulateInput): Promise<Simulation> {
  const orgId = principal.orgId;
  const wh = await getWarehouseQueries();
  const [newest] = await wh.billingMonths(orgId);
  const info = newest
    ? await wh.billingInfo(orgId, ymd(addMonths(dayMs(`${newest}-01`), -1)).slice(0, 7))
    : { lastChargeDay: null };
  if (!info.lastChargeDay)
    throw new UnprocessableError('The organisation has no billing data to simulate a savings plan from');
  const end = dayMs(info.lastChargeDay) + DAY_MS;
  const start = end - input.lookbackDays * DAY_MS;
  const money = await moneyFor(orgId, start, end);
  const rows = await facts(orgId, start, end, SIMULATION_GROUPS, 'hour', money);
  const { usage, planCost, onDemandCost } = hourlyUsage(rows, input.provider, start, input.lookbackDays * 24);
  let discount: number;
  let source: 'export' | 'request';
  if (input.discountRate !== undefined) {
    discount = input.discountRate;
    source = 'request';
  } else if (onDemandCost > 0 && planCost >= 0 && planCost < onDemandCost) {
    discount = 1 - planCost / onDemandCost;
    source = 'export';
  } else {
    throw new UnprocessableError(
      `No ${input.provider} ${PLAN_RULES[input.provider].name} usage between ${ymd(start)} and ${ymd(end - DAY_MS)} to read the plan's rate from: give discountRate (0 to 1)`,
    );
  }
  const { curve, recommended } = simulate({
    usage,
    discount,
    levels: levelsUpTo(usage, discount, input.levels ?? 50),
    term: input.term,
    paymentOption: input.paymentOption,
  });
  const hours = usage.length;
  return {
    provider: input.provider,
    lookback: { startDate: ymd(start), endDate: ymd(end - DAY_MS), hours },
    term: input.term,
    paymentOption: input.paymentOption,
    currency: money.currency,
    conversion: money.conversion,
    rate: { discount, source, planCost, onDemandCost },
    eligibleOnDemandCost: usage.reduce((s, u) => s + u, 0),
    hoursPerMonth: HOURS_PER_MONTH,
    curve,
    recommended,
  };
}
