import * as v from 'valibot';
import type { Principal } from '../../../auth/principal';
import {
  type ChartInput,
  type ChartType,
  chartInputOf,
  stampLines,
  widgetChartType,
} from '../../../charts/spec';
import { NotFoundError } from '../../../errors';
import type { Dashboard } from '../../../model/dashboards';
import { ExplorerRequestSchema } from '../../../model/query-model';
import type {
  ReportBudgetQueryValue,
  ReportCostQueryValue,
  ReportWidgetValue,
} from '../../../model/report-schemas';
import { readDashboard } from '../../dashboards/service';
import { runExplorer } from '../../queries/engine';
import type { ExplorerResult } from '../../queries/model';
import { runDashboardWidget } from '../../queries/service';
import { asDims, contextCurrency, periodInfo, reportingCurrencyOf } from './cost-query';
import type { ChartData, PeriodInfo, RenderContext, WidgetData } from './widget-data';

// The widgets that draw charts: a GRAPH_SNAPSHOT (a dashboard's widget, or the report's own
// queries) and a DASHBOARD_PDF (every widget of a dashboard).

/** The stamp (period, cut-off, rates) every chart states, from the engine's answer. */
export function stampOf(info: PeriodInfo): string[] {
  return stampLines({
    period: info.period,
    comparisonPeriod: info.comparisonPeriod,
    dataThrough: info.dataThrough,
    currency: info.currency,
    requestedCurrency: info.requestedCurrency,
    conversion: info.conversion,
  });
}

function chartOf(
  r: ExplorerResult,
  title: string,
  chartType: ChartType,
  key: string | null,
  requestedCurrency: string | null,
  displayOptions?: ChartInput['displayOptions'],
): ChartData {
  return {
    ...periodInfo(requestedCurrency, r),
    key,
    chart: chartInputOf(r, { title, chartType, displayOptions, requestedCurrency }),
  };
}

/** A scheduled delivery reads dashboards as its organisation (tenant-bound, not user-bound). */
function orgReader(orgId: string): Principal {
  return { orgId, principalId: 'report-delivery', kind: 'org', role: 'admin', teamIds: [] };
}

async function loadDashboard(ctx: RenderContext, dashboardId: string): Promise<Dashboard | null> {
  if (ctx.dashboards) return ctx.dashboards(dashboardId);
  try {
    return await readDashboard(ctx.viewer ?? orgReader(ctx.orgId), dashboardId);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

type DashboardWidget = Dashboard['widgets'][number];

/** A dashboard widget's data exactly as `GET …/widgets/{key}/data` answers it, at the run's time. */
async function dashboardWidgetChart(
  ctx: RenderContext,
  d: Dashboard,
  w: DashboardWidget,
): Promise<ChartData> {
  // A dashboard without a currency is drawn in the organisation's reporting currency: a report's
  // files never add two billing currencies up.
  const currency = d.currency ?? ((await reportingCurrencyOf(ctx)) as NonNullable<Dashboard['currency']>);
  const r = await runDashboardWidget({ ...d, currency }, w, {
    orgId: ctx.orgId,
    now: ctx.now,
    timeZone: ctx.timeZone,
  });
  return chartOf(
    r,
    w.title || w.key,
    widgetChartType(w.source.request.queries),
    w.key,
    currency,
    w.source.request.displayOptions,
  );
}

export async function graphSnapshot(ctx: RenderContext, widget: GraphSnapshotWidget): Promise<WidgetData> {
  if (widget.dashboardId && widget.widgetKey)
    return dashboardWidgetSnapshot(ctx, widget, widget.dashboardId, widget.widgetKey);
  return querySnapshot(ctx, widget);
}

type GraphSnapshotWidget = Extract<ReportWidgetValue, { type: 'GRAPH_SNAPSHOT' }>;

/** A GRAPH_SNAPSHOT of a dashboard's widget: that widget's chart, under the snapshot's title when it has one. */
async function dashboardWidgetSnapshot(
  ctx: RenderContext,
  widget: GraphSnapshotWidget,
  dashboardId: string,
  widgetKey: string,
): Promise<WidgetData> {
  const d = await loadDashboard(ctx, dashboardId);
  const w = d?.widgets.find((x) => x.key === widgetKey);
  if (!d || !w)
    return {
      type: 'GRAPH_SNAPSHOT',
      title: widget.title ?? null,
      rendered: false,
      reason: `Dashboard ${dashboardId} or its widget ${widgetKey} was not found.`,
    };
  const data = await dashboardWidgetChart(ctx, d, w);
  if (widget.title) data.chart.title = widget.title;
  return { type: 'GRAPH_SNAPSHOT', title: widget.title ?? null, rendered: true, ...data };
}

/** A GRAPH_SNAPSHOT of the report's own queries, asked of the engine in the context. */
async function querySnapshot(ctx: RenderContext, widget: GraphSnapshotWidget): Promise<WidgetData> {
  // Context → widget → query: the widget's groupBy and period override the context's; each query's
  // groupBy, metricId, currency, filter, alias and chartType override those again.
  const widgetDims = widget.groupBy ? [widget.groupBy] : asDims(ctx.context.groupBy);
  const currency = await contextCurrency(ctx);
  const queries: (ReportCostQueryValue | ReportBudgetQueryValue)[] = widget.queries ?? [
    { type: 'cost', name: 'cost' },
  ];
  const chartType = queries[0]?.chartType ?? widget.chartType;
  const request = v.parse(ExplorerRequestSchema, {
    period: {
      datePreset: widget.datePreset ?? ctx.context.datePreset ?? 'LAST_MONTH',
      aggBy: widget.aggBy ?? 'Day',
    },
    queries: queries.map((q, i) => {
      if (q.type === 'budget')
        return { ...q, colorIndex: q.colorIndex ?? i, chartType: q.chartType ?? widget.chartType };
      const dims = q.groupBy !== undefined ? asDims(q.groupBy) : widgetDims;
      return {
        type: 'cost',
        name: q.name,
        colorIndex: q.colorIndex ?? i,
        chartType: q.chartType ?? widget.chartType,
        metricId: q.metricId ?? ctx.context.metricId,
        ...(q.alias ? { alias: q.alias } : {}),
        ...(dims.length ? { groupBy: dims } : {}),
        ...(q.currency ? { currency: q.currency } : {}),
        ...(q.whereClause ? { whereClause: q.whereClause } : {}),
      };
    }),
    ...(widget.displayOptions ? { displayOptions: widget.displayOptions } : {}),
  });
  const r = await runExplorer(request, {
    orgId: ctx.orgId,
    now: ctx.now,
    timeZone: ctx.timeZone,
    currency,
    conditions: ctx.context.conditions ?? null,
  });
  // One currency asked by every query (a query's own, else the context's): the chart states it.
  // (A budget query is answered in the context's currency.)
  const asked = [...new Set(queries.map((q) => (q.type === 'cost' ? q.currency : undefined) ?? currency))];
  const requested = asked.length === 1 ? asked[0]! : null;
  const first = queries[0];
  const firstDims =
    first?.type === 'cost' && first.groupBy !== undefined ? asDims(first.groupBy) : widgetDims;
  const title =
    widget.title ??
    (queries.length === 1 ? queries[0]?.alias : undefined) ??
    (firstDims.length ? `Cost by ${firstDims.join(' › ')}` : 'Cost');
  if (requested !== null) {
    const data = chartOf(r, title, chartType, null, requested, widget.displayOptions);
    return { type: 'GRAPH_SNAPSHOT', title: widget.title ?? null, rendered: true, ...data };
  }
  // Queries asked in different currencies share a chart but never a total nor a currency sign:
  // the stamp says which query is in which currency, and what was converted.
  const data = chartOf(r, title, chartType, null, null, { ...widget.displayOptions, showTotal: false });
  const perQuery = r.queries.map((q) => {
    const conv = q.conversion?.rates ? `, converted from ${q.conversion.from.join(', ')}` : '';
    return `${q.alias ?? q.name} in ${q.currency ?? 'its billing currency'}${conv}`;
  });
  data.chart.currency = null;
  data.chart.stamp = [
    ...data.chart.stamp.slice(0, 1),
    `Figures per query: ${perQuery.join('; ')} (at each charge day's rate)`,
  ];
  return {
    type: 'GRAPH_SNAPSHOT',
    title: widget.title ?? null,
    rendered: true,
    ...data,
    currency: null,
    conversion: null,
  };
}

/** Reading order of a dashboard's grid: top to bottom, then left to right. */
const byPosition = (a: DashboardWidget, b: DashboardWidget) => a.y - b.y || a.x - b.x;

export async function dashboardPdf(
  ctx: RenderContext,
  widget: Extract<ReportWidgetValue, { type: 'DASHBOARD_PDF' }>,
): Promise<WidgetData> {
  const d = await loadDashboard(ctx, widget.dashboardId);
  if (!d)
    return {
      type: 'DASHBOARD_PDF',
      title: widget.title ?? null,
      rendered: false,
      reason: `Dashboard ${widget.dashboardId} was not found.`,
    };
  const charts: ChartData[] = [];
  // One widget after another: each is a few warehouse statements, and the PDF keeps their order.
  for (const w of [...d.widgets].sort(byPosition)) charts.push(await dashboardWidgetChart(ctx, d, w));
  return {
    type: 'DASHBOARD_PDF',
    title: widget.title ?? null,
    rendered: true,
    dashboardId: d.id,
    dashboardName: d.name,
    charts,
  };
}
