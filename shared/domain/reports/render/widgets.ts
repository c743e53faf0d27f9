import * as v from 'valibot';
import type { Principal } from '../../../auth/principal';
import {
  type ChartInput,
  type ChartType,
  chartInputOf,
  stampLines,
  widgetChartType,
} from '../../../charts/spec';
import { getOrganizationReportingCurrency } from '../../../db/organizations-repo';
import { NotFoundError } from '../../../errors';
import { MissingRateError } from '../../../warehouse/sql/compile';
import { type BudgetsOverview, budgetsOverview } from '../../budgets/digest';
import { ExplorerRequestSchema } from '../../common/query-model';
import type { Dashboard } from '../../dashboards/model';
import { readDashboard } from '../../dashboards/service';
import { runExplorer } from '../../queries/engine';
import { bucketForecast, forecastHistoryDays } from '../../queries/explorer-forecast';
import type { ExplorerResult, PeriodOut } from '../../queries/model';
import { DAY_MS, ymd } from '../../queries/period';
import { runDashboardWidget } from '../../queries/service';
import type {
  ReportBudgetQueryValue,
  ReportContextValue,
  ReportCostQueryValue,
  ReportWidgetValue,
} from '../schemas';
import { type CommitmentsWidgetData, commitmentsWidget } from './commitments-widget';
import { markdownToHtml, markdownToMrkdwn, markdownToText } from './markdown';

/**
 * The data of each widget, computed from the query engine for the report's context at the run's
 * time (`now`): the same request `POST /queries/explorer` answers, so every figure equals the
 * explorer's. This is what `POST /reports/preview-widget` answers and what the email and Slack
 * formats are written from.
 */
export interface RenderContext {
  orgId: string;
  context: ReportContextValue;
  /** The run's scheduled time: date presets resolve against it. */
  now: Date;
  timeZone: string;
  /**
   * Who reads the dashboards a GRAPH_SNAPSHOT or DASHBOARD_PDF names: the caller of a preview; a
   * scheduled delivery reads them as its organisation (`orgReader`).
   */
  viewer?: Principal;
  /** Reads a dashboard with its widgets, null when it does not exist or is not visible. */
  dashboards?: (dashboardId: string) => Promise<Dashboard | null>;
  /**
   * The organisation's reporting currency: the currency of the figures when neither the context
   * nor a query asks one. Read from the organisation when not given.
   */
  reportingCurrency?: string;
  /** The DIGESTs' daily cost histories read in this run, by query, currency and days (see `monthForecast`). */
  histories?: Map<string, Promise<ExplorerResult>>;
}

/** One chart of a report: what it draws (`chart`) and the period and cut-off it states. */
export type ChartData = PeriodInfo & {
  /** The dashboard widget's key, or null for a chart of the report's own context. */
  key: string | null;
  chart: ChartInput;
};

export interface Change {
  /** The group values from the root down to this node (dimension → value). */
  group: Record<string, string | null>;
  dimension: string;
  value: string | null;
  current: number;
  previous: number;
  diff: number;
  /** Percent change; null when the previous figure is 0. */
  relativeDiff: number | null;
  /** Both thresholds met: a mover. */
  highlighted: boolean;
  children: Change[];
}

export interface PeriodInfo {
  period: PeriodOut;
  comparisonPeriod: PeriodOut | null;
  dataThrough: string | null;
  /** The currency the figures are in: the context's (converted), else the billing currency. */
  currency: string | null;
  requestedCurrency: string | null;
  /** The conversion applied to the figures, if any (docs/currency.md). */
  conversion: ExplorerResult['conversion'];
}

export interface Totals {
  current: number;
  previous: number;
  diff: number;
  relativeDiff: number | null;
}

/**
 * The DIGEST's month-end forecast: the month holding the day after `dataThrough`, its actual days
 * plus the forecasting model's forecast of the rest, the 80 % interval on the whole month
 * (docs/reports.md).
 */
export interface MonthForecast {
  /** `YYYY-MM`. */
  month: string;
  value: number;
  lower80: number;
  upper80: number;
  /** Actual through this day. */
  dataThrough: string;
  method: string;
}

/** "March 2025 is forecast to close at $X (80 % between $A and $B); actual through 2025-03-12." */
export function forecastSentence(f: MonthForecast, currency: string | null): string {
  const name = new Date(`${f.month}-01T00:00:00Z`).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return `${name} is forecast to close at ${money(f.value, currency)} (80 % between ${money(f.lower80, currency)} and ${money(f.upper80, currency)}); actual through ${f.dataThrough}.`;
}

export type WidgetData =
  | { type: 'TEXT'; title: string | null; markdown: string; html: string; mrkdwn: string; text: string }
  | (PeriodInfo & {
      type: 'DIGEST';
      title: string | null;
      display: 'tree' | 'table' | 'summary';
      groupBy: string[];
      thresholds: { minAbsoluteDiff: number; minRelativeDiff: number; topLargestAbsoluteChange: number };
      totals: Totals;
      /** Every node, root level = the first group-by. */
      tree: Change[];
      /** The highlighted nodes with the largest absolute change, at most `topLargestAbsoluteChange`. */
      movers: Omit<Change, 'children'>[];
      summary: string;
      /** The month in progress, forecast to its end (null without billing data). */
      forecast: MonthForecast | null;
      /** The organisation's budget lines forecast over budget this month (null without budgets). */
      budgets: BudgetsOverview | null;
    })
  | (PeriodInfo & {
      type: 'TOP_FLOP';
      title: string | null;
      groupBy: string;
      totals: Totals;
      increases: Omit<Change, 'children'>[];
      decreases: Omit<Change, 'children'>[];
    })
  | (ChartData & { type: 'GRAPH_SNAPSHOT'; title: string | null; rendered: true })
  | {
      type: 'DASHBOARD_PDF';
      title: string | null;
      rendered: true;
      dashboardId: string;
      dashboardName: string;
      /** The dashboard's widgets in reading order (top to bottom, left to right). */
      charts: ChartData[];
    }
  | {
      type: 'GRAPH_SNAPSHOT' | 'DASHBOARD_PDF';
      title: string | null;
      rendered: false;
      reason: string;
    }
  | CommitmentsWidgetData;

/**
 * What one DIGEST or TOP_FLOP widget asks, resolved context → widget → query as the reference
 * product does: the query's fields win over the widget's, the widget's over the context's; the
 * query's filter is ANDed with the context's `conditions` (by the engine).
 */
interface Resolved {
  dims: string[];
  metricId: ReportContextValue['metricId'];
  datePreset: NonNullable<ReportContextValue['datePreset']>;
  /** The currency asked: the query's, else the context's, else the organisation's reporting currency. */
  currency: string;
  query: ReportCostQueryValue | undefined;
}

const asDims = (g: string | readonly string[] | null | undefined): string[] =>
  g === null || g === undefined ? [] : typeof g === 'string' ? (g ? [g] : []) : [...g];

/** The currency figures are asked in when neither a query nor the context names one. */
async function reportingCurrencyOf(ctx: RenderContext): Promise<string> {
  ctx.reportingCurrency ??= await getOrganizationReportingCurrency(ctx.orgId);
  return ctx.reportingCurrency;
}

/** The currency of the context: its own, else the organisation's reporting currency. */
async function contextCurrency(ctx: RenderContext): Promise<string> {
  return ctx.context.currency ?? (await reportingCurrencyOf(ctx));
}

async function resolve(
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
function askCost(
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
function compare(ctx: RenderContext, r: Resolved, groupBy: string[]): Promise<ExplorerResult> {
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

/**
 * The month in progress forecast to its end (the month holding the day after `dataThrough`): the
 * widget's cost query, ungrouped, in its currency, by the explorer's forecast (the model), its
 * interval on the whole month. One read: the daily history the explorer's forecast would read
 * (`forecastHistoryDays` days through `dataThrough`, the month's actual days included) and
 * `bucketForecast` over it, so the figures are the explorer's without its second call; DIGESTs of
 * a report asking the same query share that read (`RenderContext.histories`). Null without billing
 * data, or when a rate its history needs is missing.
 */
async function monthForecast(
  ctx: RenderContext,
  r: Resolved,
  dataThrough: string | null,
): Promise<MonthForecast | null> {
  if (!dataThrough) return null;
  const through = Date.parse(`${dataThrough}T00:00:00Z`);
  const next = new Date(through + DAY_MS);
  const month = next.toISOString().slice(0, 7);
  const monthStart = Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), 1);
  const monthEnd = Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1);
  const days = Math.round((monthEnd - DAY_MS - through) / DAY_MS);
  const from = `${ymd(through - (forecastHistoryDays(days) - 1) * DAY_MS)}T00:00:00Z`;
  const key = JSON.stringify([r.metricId, r.query?.whereClause ?? null, r.currency, from, dataThrough]);
  ctx.histories ??= new Map();
  let read = ctx.histories.get(key);
  if (!read) {
    read = askCost(ctx, r, { startDate: from, endDate: `${dataThrough}T00:00:00Z`, aggBy: 'Day' }, []);
    ctx.histories.set(key, read);
  }
  // The forecast reads history before the widget's period; a rate missing there (the widget's own
  // figures had theirs) leaves the digest without its forecast line rather than failing it.
  let res: ExplorerResult;
  try {
    res = await read;
  } catch (error) {
    if (error instanceof MissingRateError) return null;
    throw error;
  }
  if (res.dataThrough !== dataThrough) return null;
  const history = (res.queries[0]?.series[0]?.points ?? []).map((p) => ({
    date: p.date,
    value: p.value ?? 0,
  }));
  const f = bucketForecast(
    history,
    { dataThrough: through, days, method: 'auto' },
    'Month',
    { start: monthStart, end: monthEnd },
    ymd,
  );
  const bucket = f.points[0];
  if (!bucket) return null;
  const total = bucket.bucketTotal ?? bucket;
  return {
    month,
    value: total.value,
    lower80: total.lower80,
    upper80: total.upper80,
    dataThrough,
    method: f.accuracy.method,
  };
}

function periodInfo(requestedCurrency: string | null, r: ExplorerResult): PeriodInfo {
  return {
    period: r.period,
    comparisonPeriod: r.comparison?.period ?? null,
    dataThrough: r.dataThrough,
    currency: r.currency,
    requestedCurrency,
    conversion: r.conversion,
  };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function relative(current: number, previous: number): number | null {
  return previous === 0 ? null : round(((current - previous) / Math.abs(previous)) * 100);
}

function totalsOf(r: ExplorerResult): Totals {
  const current = r.queries[0]?.total ?? 0;
  const previous = r.comparison?.queries[0]?.total ?? 0;
  return { current, previous, diff: round(current - previous), relativeDiff: relative(current, previous) };
}

const keyOf = (group: Record<string, string | null>, dims: string[]) =>
  JSON.stringify(dims.map((d) => group[d] ?? null));

interface Leaf {
  group: Record<string, string | null>;
  current: number;
  previous: number;
}

/** Pairs the current and previous series by group (a group missing on one side counts 0). */
function leaves(r: ExplorerResult, dims: string[]): Leaf[] {
  const byKey = new Map<string, Leaf>();
  const add = (
    series: ExplorerResult['queries'][number]['series'] | undefined,
    side: 'current' | 'previous',
  ) => {
    for (const s of series ?? []) {
      const k = keyOf(s.group, dims);
      const leaf = byKey.get(k) ?? { group: s.group, current: 0, previous: 0 };
      leaf[side] += s.total ?? 0;
      byKey.set(k, leaf);
    }
  };
  add(r.queries[0]?.series, 'current');
  add(r.comparison?.queries[0]?.series, 'previous');
  return [...byKey.values()];
}

function isMover(c: { diff: number; relativeDiff: number | null }, minAbs: number, minRel: number): boolean {
  return Math.abs(c.diff) >= minAbs && (c.relativeDiff === null || Math.abs(c.relativeDiff) >= minRel);
}

/** The change tree: level i groups the leaves by the first i+1 dimensions. */
export function buildTree(
  items: Leaf[],
  dims: string[],
  minAbs: number,
  minRel: number,
  depth = 0,
  prefix: Record<string, string | null> = {},
): Change[] {
  const dim = dims[depth];
  if (dim === undefined) return [];
  const groups = new Map<string, Leaf[]>();
  for (const l of items) {
    const k = JSON.stringify(l.group[dim] ?? null);
    groups.set(k, [...(groups.get(k) ?? []), l]);
  }
  const nodes: Change[] = [];
  for (const [k, ls] of groups) {
    const value = JSON.parse(k) as string | null;
    const current = round(ls.reduce((a, l) => a + l.current, 0));
    const previous = round(ls.reduce((a, l) => a + l.previous, 0));
    const diff = round(current - previous);
    const group = { ...prefix, [dim]: value };
    const node: Change = {
      group,
      dimension: dim,
      value,
      current,
      previous,
      diff,
      relativeDiff: relative(current, previous),
      highlighted: false,
      children: buildTree(ls, dims, minAbs, minRel, depth + 1, group),
    };
    node.highlighted = isMover(node, minAbs, minRel);
    nodes.push(node);
  }
  return nodes.sort(
    (a, b) => Math.abs(b.diff) - Math.abs(a.diff) || String(a.value).localeCompare(String(b.value)),
  );
}

function flatten(nodes: Change[]): Change[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

const strip = ({ children: _c, ...rest }: Change): Omit<Change, 'children'> => rest;

export function money(x: number, currency: string | null): string {
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: currency ?? 'USD',
      maximumFractionDigits: Math.abs(x) >= 100 ? 0 : 2,
    }).format(x);
  } catch {
    return `${x.toFixed(2)} ${currency ?? ''}`.trim();
  }
}

export function pct(x: number | null): string {
  if (x === null) return 'new';
  return `${x >= 0 ? '+' : ''}${x.toFixed(Math.abs(x) >= 10 ? 0 : 1)} %`;
}

const label = (v: string | null) => v ?? '(none)';

/**
 * The summary narrative, written by rules from the tree: the total's change, then each of the
 * three largest root-level movers, with "mostly <child>" when one child carries at least half of
 * its parent's change in the same direction.
 */
export function summarise(
  totals: Totals,
  tree: Change[],
  currency: string | null,
  period: PeriodOut,
): string {
  const verb = (d: number) => (d > 0 ? 'rose' : d < 0 ? 'fell' : 'was flat at');
  const lines: string[] = [];
  lines.push(
    totals.diff === 0
      ? `Total cost was flat at ${money(totals.current, currency)} for ${period.startDate} to ${period.endDate}.`
      : `Total cost ${verb(totals.diff)} ${money(Math.abs(totals.diff), currency)} (${pct(totals.relativeDiff)}) to ${money(totals.current, currency)} for ${period.startDate} to ${period.endDate}.`,
  );
  const movers = tree.filter((n) => n.highlighted && n.diff !== 0).slice(0, 3);
  for (const n of movers) {
    let line = `${label(n.value)} ${verb(n.diff)} ${money(Math.abs(n.diff), currency)} (${pct(n.relativeDiff)})`;
    const top = n.children.find((c) => Math.sign(c.diff) === Math.sign(n.diff));
    if (top && Math.abs(top.diff) >= Math.abs(n.diff) / 2) line += `, mostly ${label(top.value)}`;
    lines.push(`${line}.`);
  }
  if (!movers.length) lines.push('No group moved past the thresholds.');
  return lines.join(' ');
}

export async function renderWidget(ctx: RenderContext, widget: ReportWidgetValue): Promise<WidgetData> {
  switch (widget.type) {
    case 'TEXT':
      return {
        type: 'TEXT',
        title: widget.title ?? null,
        markdown: widget.contentMarkdown,
        html: markdownToHtml(widget.contentMarkdown),
        mrkdwn: markdownToMrkdwn(widget.contentMarkdown),
        text: markdownToText(widget.contentMarkdown),
      };
    case 'DIGEST': {
      const r = await resolve(ctx, widget, widget.queries, true);
      const dims = [...(r.dims.length ? r.dims : ['service']), ...widget.additionalGroupBy];
      const res = await compare(ctx, r, dims);
      const totals = totalsOf(res);
      const tree = buildTree(leaves(res, dims), dims, widget.minAbsoluteDiff, widget.minRelativeDiff);
      const movers = flatten(tree)
        .filter((n) => n.highlighted)
        .sort((a, b) => Math.abs(b.diff) - Math.abs(a.diff))
        .slice(0, widget.topLargestAbsoluteChange)
        .map(strip);
      return {
        type: 'DIGEST',
        title: widget.title ?? r.query?.alias ?? null,
        display: widget.display,
        groupBy: dims,
        thresholds: {
          minAbsoluteDiff: widget.minAbsoluteDiff,
          minRelativeDiff: widget.minRelativeDiff,
          topLargestAbsoluteChange: widget.topLargestAbsoluteChange,
        },
        ...periodInfo(r.currency, res),
        totals,
        tree,
        movers,
        summary: summarise(totals, tree, res.currency, res.period),
        forecast: await monthForecast(ctx, r, res.dataThrough),
        budgets: await budgetsOverview(ctx.orgId, ctx.timeZone, ctx.now),
      };
    }
    case 'TOP_FLOP': {
      const r = await resolve(ctx, widget, widget.queries, true);
      const dim = r.dims[0] ?? 'service';
      const res = await compare(ctx, r, [dim]);
      const nodes = buildTree(leaves(res, [dim]), [dim], 0, 0).map(strip);
      return {
        type: 'TOP_FLOP',
        title: widget.title ?? r.query?.alias ?? null,
        groupBy: dim,
        ...periodInfo(r.currency, res),
        totals: totalsOf(res),
        increases: nodes.filter((n) => n.diff > 0).slice(0, widget.topN),
        decreases: nodes
          .filter((n) => n.diff < 0)
          .sort((a, b) => a.diff - b.diff)
          .slice(0, widget.flopN),
      };
    }
    case 'GRAPH_SNAPSHOT':
      return graphSnapshot(ctx, widget);
    case 'DASHBOARD_PDF':
      return dashboardPdf(ctx, widget);
    case 'COMMITMENTS':
      return commitmentsWidget(ctx, widget);
  }
}

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
  const info: PeriodInfo = {
    period: r.period,
    comparisonPeriod: r.comparison?.period ?? null,
    dataThrough: r.dataThrough,
    currency: r.currency,
    requestedCurrency,
    conversion: r.conversion,
  };
  return { ...info, key, chart: chartInputOf(r, { title, chartType, displayOptions, requestedCurrency }) };
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

async function graphSnapshot(
  ctx: RenderContext,
  widget: Extract<ReportWidgetValue, { type: 'GRAPH_SNAPSHOT' }>,
): Promise<WidgetData> {
  if (widget.dashboardId && widget.widgetKey) {
    const d = await loadDashboard(ctx, widget.dashboardId);
    const w = d?.widgets.find((x) => x.key === widget.widgetKey);
    if (!d || !w)
      return {
        type: 'GRAPH_SNAPSHOT',
        title: widget.title ?? null,
        rendered: false,
        reason: `Dashboard ${widget.dashboardId} or its widget ${widget.widgetKey} was not found.`,
      };
    const data = await dashboardWidgetChart(ctx, d, w);
    if (widget.title) data.chart.title = widget.title;
    return { type: 'GRAPH_SNAPSHOT', title: widget.title ?? null, rendered: true, ...data };
  }
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

async function dashboardPdf(
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
