/**
 * The savings-plan simulation (docs/commitments.md), pure. Over the lookback's hours, `usage[h]` is
 * the eligible on-demand usage no commitment covered (at on-demand prices, every hour of the
 * lookback present, 0 when none); `discount` is the plan's rate against on-demand (1 − plan rate ÷
 * on-demand rate). A plan of `level` per hour (at plan rates) covers, each hour, on-demand usage up
 * to `level ÷ (1 − discount)`; what it does not use that hour is lost. Per level:
 * - utilisation = Σ used commitment ÷ (level × hours);
 * - coverage = Σ covered on-demand usage ÷ Σ on-demand usage;
 * - net savings over the lookback = Σ covered on-demand usage − level × hours (the commitment
 *   replaces the covered usage's on-demand cost), and per month (730 hours) in proportion;
 * - break-even month: the first month whose cumulative avoided on-demand cost pays the upfront part
 *   of the whole term plus the months' recurring part (All Upfront: the term's commitment at month
 *   0; Partial Upfront: half of it; No Upfront: none), null when it never does within the term.
 */
export const PAYMENT_OPTIONS = ['No Upfront', 'Partial Upfront', 'All Upfront'] as const;
export type PaymentOption = (typeof PAYMENT_OPTIONS)[number];
/** The providers whose spend-based plan the simulator sizes (docs/commitments.md, "Simulator"). */
export const SIMULATED_PROVIDERS = ['AWS', 'Microsoft', 'Google Cloud'] as const;
export type SimulatedProvider = (typeof SIMULATED_PROVIDERS)[number];

export const TERMS = ['1yr', '3yr'] as const;
export type Term = (typeof TERMS)[number];

export const HOURS_PER_MONTH = 730;
const UPFRONT: Record<PaymentOption, number> = {
  'No Upfront': 0,
  'Partial Upfront': 0.5,
  'All Upfront': 1,
};

export interface LevelOutcome {
  /** The commitment, per hour, at plan rates. */
  hourlyCommitment: number;
  utilization: number;
  coverage: number;
  netSavings: number;
  monthlyNetSavings: number;
  breakEvenMonth: number | null;
}

export interface SimulationInput {
  usage: readonly number[];
  discount: number;
  levels: readonly number[];
  term: Term;
  paymentOption: PaymentOption;
}

/** Evenly spaced levels up to the one that covers the busiest hour whole: `count` of them. */
export function levelsUpTo(usage: readonly number[], discount: number, count: number): number[] {
  const peak = usage.reduce((m, u) => Math.max(m, u), 0) * (1 - discount);
  if (!(peak > 0)) return [];
  return Array.from({ length: count }, (_, i) => (peak * (i + 1)) / count);
}

export function simulateLevel(input: Omit<SimulationInput, 'levels'>, level: number): LevelOutcome {
  const { usage, discount } = input;
  const hours = usage.length;
  const reach = level / (1 - discount);
  let covered = 0;
  let total = 0;
  for (const u of usage) {
    total += u;
    covered += Math.min(u, reach);
  }
  const usedCommitment = covered * (1 - discount);
  const netSavings = covered - level * hours;
  const monthlyBenefit = hours ? (covered / hours) * HOURS_PER_MONTH : 0;
  const monthlyCommitment = level * HOURS_PER_MONTH;
  const months = input.term === '3yr' ? 36 : 12;
  const f = UPFRONT[input.paymentOption];
  // m × benefit ≥ f × commitment × months + m × (1 − f) × commitment
  const margin = monthlyBenefit - (1 - f) * monthlyCommitment;
  let breakEvenMonth: number | null = null;
  if (margin > 0) {
    const m = Math.max(1, Math.ceil((f * monthlyCommitment * months) / margin - 1e-9));
    breakEvenMonth = m <= months ? m : null;
  }
  return {
    hourlyCommitment: level,
    utilization: level > 0 && hours ? usedCommitment / (level * hours) : 0,
    coverage: total > 0 ? covered / total : 0,
    netSavings,
    monthlyNetSavings: hours ? (netSavings / hours) * HOURS_PER_MONTH : 0,
    breakEvenMonth,
  };
}

/** Every level's outcome, and the level of the largest net savings (null when none saves). */
export function simulate(input: SimulationInput): {
  curve: LevelOutcome[];
  recommended: LevelOutcome | null;
} {
  const curve = input.levels.map((l) => simulateLevel(input, l));
  let best: LevelOutcome | null = null;
  for (const c of curve) if (c.netSavings > 0 && (!best || c.netSavings > best.netSavings)) best = c;
  return { curve, recommended: best };
}
