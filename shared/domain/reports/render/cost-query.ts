import * as v from 'valibot';
import { getOrganizationReportingCurrency } from '../../../db/organizations-repo';
import { ExplorerRequestSchema } from '../../../model/query-model';
import type { ReportContextValue, ReportCostQueryValue } from '../../../model/report-schemas';
import { runExplorer } from '../../queries/engine';
import type { ExplorerResult } from '../../queries/model';
import type { PeriodInfo, RenderContext } from './widget-data';

/**
 * What one DIGEST or TOP_FLOP widget asks, resolved context → widget → query as the reference
 * product does: the query's fields win over the widget's, the widget's over the context's; the
 * query's filter is ANDed with the context's `conditions` (by the engine).
 */
export interface Resolved {
  dims: string[];
  metricId: ReportContextValue['metricId'];
  datePreset: NonNullable<ReportContextValue['datePreset']>;
  /** The currency asked: the query's, else the context's, else the organisation's reporting currency. */
  currency: string;
  query: ReportCostQueryValue | undefined;
}

export const asDims = (g: string | readonly string[] | null | undefined): string[] =>
  g === null || g === undefined ? [] : typeof g === 'string' ? (g ? [g] : []) : [...g];

/** The currency figures are asked in when neither a query nor the context names one. */
export async function reportingCurrencyOf(ctx: RenderContext): Promise<string> {
  ctx.reportingCurrency ??= await getOrganizationReportingCurrency(ctx.orgId);
  return ctx.reportingCurrency;
}

/** The currency of the context: its own, else the organisation's reporting currency. */
export async function contextCurrency(ctx: RenderContext): Promise<string> {
  return ctx.context.currency ?? (await reportingCurrencyOf(ctx));
}

export async function resolve(
  ctx: RenderContext,
  widget: { groupBy?: string | null | undefined; datePreset?: ReportContextValue['datePreset'] | undefined },
  queries: readonly ReportCostQueryValue[] | undefined,
  rootOnly: boolean,
): Promise<Resolved> {
  const query = queries?.[0];
  const contextDims = rootOnly ? asDims(ctx.context.groupBy).slice(0, 1) : asDims(ctx.context.groupBy);
  const dims =
    query?.groupBy !== undefined
      ? asDims(query.groupBy)
      : widget.groupBy !== undefined
        ? asDims(widget.groupBy)
        : contextDims;
  return {
    dims,
    metricId: query?.metricId ?? ctx.context.metricId,
    datePreset: widget.datePreset ?? ctx.context.datePreset ?? 'LAST_MONTH',
    currency: query?.currency ?? (await contextCurrency(ctx)),
    query,
  };
}

/**
 * The widget's cost query (its metric and filter, `groupBy` when given) over `period`, answered by
 * the engine in the resolved currency with the context's conditions.
 */
export function askCost(
  ctx: RenderContext,
  r: Resolved,
  period: Record<string, unknown>,
  groupBy: string[],
  extra: Record<string, unknown> = {},
): Promise<ExplorerResult> {
  const request = v.parse(ExplorerRequestSchema, {
    period,
    queries: [
      {
        type: 'cost',
        name: 'cost',
        colorIndex: 0,
        chartType: 'TABLE',
        metricId: r.metricId,
        ...(groupBy.length ? { groupBy } : {}),
        ...(r.query?.whereClause ? { whereClause: r.query.whereClause } : {}),
      },
    ],
    ...extra,
  });
  return runExplorer(request, {
    orgId: ctx.orgId,
    now: ctx.now,
    timeZone: ctx.timeZone,
    currency: r.currency,
    conditions: ctx.context.conditions ?? null,
  });
}

/** Grouped cost for the resolved period and the period before it, with every group (≤ 1,000). */
export function compare(ctx: RenderContext, r: Resolved, groupBy: string[]): Promise<ExplorerResult> {
  return askCost(
    ctx,
    r,
    {
      datePreset: r.datePreset,
      aggBy: 'Period',
      comparisonPeriod: { enabled: true, startDate: null, endDate: null, chartType: 'TABLE' },
    },
    groupBy,
    { limitOverride: 1000 },
  );
}

export function periodInfo(requestedCurrency: string | null, r: ExplorerResult): PeriodInfo {
  return {
    period: r.period,
    comparisonPeriod: r.comparison?.period ?? null,
    dataThrough: r.dataThrough,
    currency: r.currency,
    requestedCurrency,
    conversion: r.conversion,
  };
}
