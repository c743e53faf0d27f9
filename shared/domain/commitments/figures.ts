import type { CommitmentFact } from '../../warehouse/sql/commitments';

/**
 * The commitment figures from the warehouse facts (docs/commitments.md), pure:
 * - a commitment's **cost** for a period is what it used plus what it left unused;
 * - where the export amortises (AWS, Azure, FOCUS): used = EffectiveCost of its `Used` lines,
 *   unused = EffectiveCost of its `Unused` lines;
 * - where the discount is a credit on the usage and the fee a purchase line (Google Cloud CUDs), that
 *   is on a day the commitment has no used or unused EffectiveCost (no amortised lines):
 *   per charge day, used = min(fee, on-demand value the credits covered), unused = the rest of the fee;
 *   with groups, each group's share is pro rata (its credits of the day's used part, its fee of the
 *   unused part), so the groups add up to the commitment;
 * - **on-demand cost** (what the covered usage would have cost without it) = ListCost of its used lines
 *   plus its credits made positive; **savings** = on-demand cost − cost (net of the unused part);
 *   **effective savings rate** = savings ÷ on-demand cost (per commitment) or ÷ all eligible usage at
 *   on-demand prices (in the summary, the FinOps Foundation's definition);
 * - **utilisation** = used ÷ cost; **coverage** = covered usage at on-demand prices ÷ all eligible usage
 *   at on-demand prices (covered included).
 */
export interface Amounts {
  cost: number;
  used: number;
  unused: number;
  /** Covered usage at on-demand prices. */
  onDemand: number;
  /** Eligible usage at on-demand prices, covered or not. */
  eligible: number;
}

export const zero = (): Amounts => ({ cost: 0, used: 0, unused: 0, onDemand: 0, eligible: 0 });

export function addInto(into: Amounts, a: Amounts): void {
  into.cost += a.cost;
  into.used += a.used;
  into.unused += a.unused;
  into.onDemand += a.onDemand;
  into.eligible += a.eligible;
}

/**
 * Each fact as amounts, with the credit-style clamp applied per (bucket's day, commitment) across
 * its groups. Facts of the eligible usage naming no commitment count as eligible only.
 */
export function factAmounts(facts: readonly CommitmentFact[]): { fact: CommitmentFact; amounts: Amounts }[] {
  const pools = new Map<string, { fee: number; credit: number; amortised: boolean }>();
  const poolKey = (f: CommitmentFact) => `${f.bucket.slice(0, 10)}|${f.commitmentId}`;
  for (const f of facts) {
    if (!f.commitmentId) continue;
    const p = pools.get(poolKey(f)) ?? { fee: 0, credit: 0, amortised: false };
    p.fee += f.fee;
    p.credit += f.credit;
    p.amortised ||= f.used !== 0 || f.unused !== 0;
    pools.set(poolKey(f), p);
  }
  // An amortised commitment's fee is already in its used and unused lines.
  for (const p of pools.values()) if (p.amortised) p.fee = 0;
  return facts.map((f) => {
    if (!f.commitmentId) return { fact: f, amounts: { ...zero(), eligible: f.eligibleList } };
    const pool = pools.get(poolKey(f))!;
    const poolUsed = Math.max(0, Math.min(pool.fee, pool.credit));
    const poolUnused = Math.max(0, pool.fee - poolUsed);
    const used = f.used + (pool.credit > 0 ? (f.credit * poolUsed) / pool.credit : 0);
    const unused = f.unused + (pool.fee > 0 ? (f.fee * poolUnused) / pool.fee : 0);
    const onDemand = f.coveredList + f.credit;
    // Credit-style covered usage is already among the eligible usage naming no commitment.
    return {
      fact: f,
      amounts: { cost: used + unused, used, unused, onDemand, eligible: f.coveredList },
    };
  });
}

export interface Rates {
  utilization: number | null;
  coverage: number | null;
  savings: number;
  effectiveSavingsRate: number | null;
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

/** The rates of summed amounts; `esrBase` is what the savings rate divides by. */
export function ratesOf(a: Amounts, esrBase: 'onDemand' | 'eligible'): Rates {
  const savings = a.onDemand - a.cost;
  return {
    utilization: ratio(a.used, a.cost),
    coverage: ratio(a.onDemand, a.eligible),
    savings,
    effectiveSavingsRate: ratio(savings, esrBase === 'onDemand' ? a.onDemand : a.eligible),
  };
}

/** First day of the week (Monday) or month holding `day` (`YYYY-MM-DD`), or the day itself. */
export function bucketOf(day: string, granularity: 'DAY' | 'WEEK' | 'MONTH'): string {
  if (granularity === 'DAY') return day;
  if (granularity === 'MONTH') return `${day.slice(0, 7)}-01`;
  const t = Date.parse(`${day}T00:00:00Z`);
  const weekday = (new Date(t).getUTCDay() + 6) % 7;
  return new Date(t - weekday * 86_400_000).toISOString().slice(0, 10);
}
