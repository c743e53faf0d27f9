import * as v from 'valibot';
import type { Principal } from '../../../auth/principal';
import { chartInputOf } from '../../../charts/spec';
import { getOrganizationReportingCurrency } from '../../../db/organizations-repo';
import { ExplorerRequestSchema } from '../../../model/query-model';
import type { ReportWidgetValue } from '../../../model/report-schemas';
import { expiringCommitments } from '../../commitments/expiring';
import { runExplorer } from '../../queries/engine';
import type { CommitmentsWidgetData, RenderContext } from './widget-data';

/**
 * The COMMITMENTS report widget (docs/commitments.md, "Report widget"): one explorer run of the
 * commitment metrics of the query model over the widget's period (the context's by default), so
 * its figures are the explorer's and the summary's; utilisation and coverage per bucket drawn as
 * a chart (a PNG in the email, uploaded to Slack); and the commitments ending within `withinDays`
 * days of the run, as GET /commitments/expiring lists them.
 */
export type CommitmentsWidgetValue = Extract<ReportWidgetValue, { type: 'COMMITMENTS' }>;

/** The figures, as the metric ids the explorer answers them under. */
const FIGURES = {
  utilization: 'commitment_utilization',
  coverage: 'commitment_coverage',
  effectiveSavingsRate: 'commitment_effective_savings_rate',
  unusedCost: 'commitment_unused_cost',
  savings: 'commitment_savings',
} as const;
/** The two ratios drawn, as percentages (`<figure> * 100`). */
const DRAWN = [
  ['utilization_pct', 'Utilisation', 'utilization'],
  ['coverage_pct', 'Coverage', 'coverage'],
] as const;

export async function commitmentsWidget(
  ctx: RenderContext,
  widget: CommitmentsWidgetValue,
): Promise<CommitmentsWidgetData> {
  ctx.reportingCurrency ??= await getOrganizationReportingCurrency(ctx.orgId);
  const currency = ctx.context.currency ?? ctx.reportingCurrency;
  const request = v.parse(ExplorerRequestSchema, {
    period: { datePreset: widget.datePreset ?? ctx.context.datePreset ?? 'LAST_MONTH', aggBy: widget.aggBy },
    queries: [
      ...Object.entries(FIGURES).map(([name, metricId], i) => ({
        type: 'metric',
        name,
        metricId,
        aggregator: 'SUM',
        colorIndex: i,
        chartType: 'LINE',
      })),
      ...DRAWN.map(([name, alias, figure], i) => ({
        type: 'formula',
        name,
        alias,
        formula: `${figure} * 100`,
        colorIndex: i,
        chartType: 'LINE',
      })),
    ],
  });
  const principal: Principal = {
    orgId: ctx.orgId,
    principalId: 'reports',
    kind: 'org',
    role: 'admin',
    teamIds: [],
  };
  const [r, expiring] = await Promise.all([
    runExplorer(request, { orgId: ctx.orgId, now: ctx.now, timeZone: ctx.timeZone, currency }),
    expiringCommitments(principal, widget.withinDays, ctx.now),
  ]);
  const total = (name: string) => r.queries.find((q) => q.name === name)?.total ?? null;
  const drawn = new Set<string>(DRAWN.map(([name]) => name));
  // Percentages: no currency stamp, and no total (two ratios do not add up).
  const chart = chartInputOf(
    { ...r, currency: null, conversion: null, queries: r.queries.filter((q) => drawn.has(q.name)) },
    {
      title: widget.title ?? 'Commitment utilisation and coverage',
      chartType: 'LINE',
      displayOptions: { showTotal: false, precision: 1 },
    },
  );
  chart.unit = '%';
  return {
    type: 'COMMITMENTS',
    title: widget.title ?? null,
    rendered: true,
    key: null,
    chart,
    period: r.period,
    comparisonPeriod: null,
    dataThrough: r.dataThrough,
    currency,
    requestedCurrency: currency,
    conversion: r.conversion,
    figures: {
      utilization: total('utilization'),
      coverage: total('coverage'),
      effectiveSavingsRate: total('effectiveSavingsRate'),
      unusedCost: total('unusedCost') ?? 0,
      savings: total('savings') ?? 0,
    },
    withinDays: widget.withinDays,
    expiring: expiring.items.map(({ id, name, provider, type, end, daysLeft }) => ({
      id,
      name,
      provider,
      type,
      end,
      daysLeft,
    })),
  };
}

const percent = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);

/** "Utilisation 86.2 % · coverage 71.0 % · unused $12.00 · savings $340.00 (effective savings rate 21.4 %)". */
export function commitmentsLine(
  w: CommitmentsWidgetData,
  money: (x: number, c: string | null) => string,
): string {
  const f = w.figures;
  return `Utilisation ${percent(f.utilization)} · coverage ${percent(f.coverage)} · unused ${money(
    f.unusedCost,
    w.currency,
  )} · savings ${money(f.savings, w.currency)} (effective savings rate ${percent(f.effectiveSavingsRate)})`;
}

/** One line per commitment ending soon: "Compute SP (AWS Savings Plan) ends 2027-01-10, in 16 days". */
export function expiringLines(w: CommitmentsWidgetData): string[] {
  if (!w.expiring.length) return [`No commitment ends within ${w.withinDays} days.`];
  return w.expiring.map(
    (c) =>
      `${c.name ?? c.id} (${c.provider} ${c.type}) ends ${c.end?.slice(0, 10) ?? 'unknown'}, in ${c.daysLeft} day${c.daysLeft === 1 ? '' : 's'}`,
  );
}
