import type { SummaryFigures } from './service';

/**
 * The commitment figures as metrics of the query model (docs/commitments.md, "In the query
 * model"): a metric query whose `metricId` is one of these answers the figure of GET
 * /commitments/summary per bucket, from the same facts and the same definition (`summaryFigures`):
 * the amounts of each bucket (and group) are summed first and the ratios computed from the sums,
 * never averaged over days.
 */
export const COMMITMENT_METRICS = {
  commitment_utilization: { figure: 'utilization', ratio: true },
  commitment_coverage: { figure: 'coverage', ratio: true },
  commitment_effective_savings_rate: { figure: 'effectiveSavingsRate', ratio: true },
  commitment_savings: { figure: 'savings', ratio: false },
  commitment_cost: { figure: 'commitmentCost', ratio: false },
  commitment_used_cost: { figure: 'usedCost', ratio: false },
  commitment_unused_cost: { figure: 'unusedCost', ratio: false },
  commitment_covered_on_demand_cost: { figure: 'coveredOnDemandCost', ratio: false },
  commitment_eligible_on_demand_cost: { figure: 'eligibleOnDemandCost', ratio: false },
} as const satisfies Record<string, { figure: keyof SummaryFigures; ratio: boolean }>;

export type CommitmentMetricId = keyof typeof COMMITMENT_METRICS;
export const COMMITMENT_METRIC_IDS = Object.keys(COMMITMENT_METRICS) as CommitmentMetricId[];

/** The unit of the ratio metrics (utilisation, coverage, savings rate: 0.8 is 80 %). */
export const RATIO_UNIT = 'ratio';

export function isCommitmentMetricId(id: string): id is CommitmentMetricId {
  return Object.hasOwn(COMMITMENT_METRICS, id);
}
