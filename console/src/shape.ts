/**
 * The console's data shaping: API answers → what the pages draw. Pure (no DOM, no fetch), so unit
 * tests run it under Node. Charts go through the same builder as the server's PNG renderer
 * (shared/charts/spec.ts), so a widget looks the same in the console and in a report.
 */
import {
  buildChartSpec,
  type ChartDisplayOptions,
  type ChartSpec,
  type ChartStamp,
  type ChartType,
  chartInputOf,
  widgetChartType as chartTypeOfQueries,
  type EngineQuery,
} from '../../shared/charts/spec';
import type { SeriesOut } from '../../shared/domain/queries/model';
import type { ExplorerUrlState } from '../../shared/links';
import { pickDashboardFields } from '../../shared/model/dashboards';
import type { WhereClause, WhereRule } from '../../shared/model/where-clause';
import { type FigureFormat, figureFormat } from './chart-option';
import { metricWords } from './words';

export { chartInputOf as chartInput, formatFigure } from '../../shared/charts/spec';

/** A query of the answer: the builder's shape, with a series' forecast when one was asked. */
export type ResultQuery = Omit<EngineQuery, 'series'> & {
  type: string;
  total: number | null;
  series: (EngineQuery['series'][number] & Pick<SeriesOut, 'forecast' | 'forecastAccuracy'>)[];
};

/** `POST /queries/explorer` and `GET …/widgets/{key}/data` answer this. */
export interface ExplorerResult {
  period: { startDate: string; endDate: string; aggBy: string };
  queries: ResultQuery[];
  /** With `period.comparisonPeriod.enabled`: the same queries over the previous period. */
  comparison?: {
    period: { startDate: string; endDate: string; aggBy: string };
    queries?: ResultQuery[];
  } | null;
  dataThrough: string | null;
  currency: string | null;
  conversion?: ChartStamp['conversion'];
}

export interface ExplorerQuery {
  type: string;
  name: string;
  colorIndex?: number;
  chartType?: string;
  visible?: boolean;
  groupBy?: string | string[] | null;
  whereClause?: WhereClause;
  metricId?: string;
  [k: string]: unknown;
}

export interface ExplorerRequest {
  period: {
    datePreset?: string | null;
    startDate?: string | null;
    endDate?: string | null;
    aggBy: string;
    [k: string]: unknown;
  };
  queries: ExplorerQuery[];
  displayOptions?: ChartDisplayOptions;
  [k: string]: unknown;
}

export interface Widget {
  key: string;
  x: number;
  y: number;
  w: number;
  h: number;
  title: string;
  description?: string;
  source: { type: 'advancedExplorer'; request: ExplorerRequest };
}

export interface Dashboard {
  id: string;
  name: string;
  description: string;
  type: string;
  teamId: string | null;
  scopeId: string | null;
  metricId: string | null;
  groupBy: string | string[] | null;
  datePreset: string | null;
  startDate: string | null;
  endDate: string | null;
  conditions: unknown;
  currency: string | null;
  version: number;
  publishedVersion?: number;
  updatedAt?: string;
  widgetCount?: number;
  widgets: Widget[];
}

/** A widget's chart type: its first visible query's, as the server's renderer reads it. */
export function widgetChartType(w: Pick<Widget, 'source'>): ChartType {
  return chartTypeOfQueries(w.source.request.queries);
}

/** A chart to draw: the builder's spec and how the page says its figures. */
export interface PageChart {
  spec: ChartSpec;
  format: FigureFormat;
}

/**
 * The answer with every query named as a user reads it: its alias; a query without one is named
 * by its metric in words ("Cost", "Net amortized cost") when it is the only one, else keeps its
 * name (several queries are told apart by the names their author gave them).
 */
export function labelQueries(r: ExplorerResult, queries: readonly ExplorerQuery[]): ExplorerResult {
  if (r.queries.length !== 1) return r;
  return {
    ...r,
    queries: r.queries.map((q) => {
      if (q.alias) return q;
      const asked = queries.find((x) => x.name === q.name);
      const alias = typeof asked?.alias === 'string' && asked.alias ? asked.alias : null;
      return { ...q, alias: alias ?? metricWords(asked?.metricId ?? (q.type === 'cost' ? 'cost' : q.name)) };
    }),
  };
}

/** The chart of an answer to `request`, titled `title`, drawn as `chartType`. */
export function pageChart(
  r: ExplorerResult,
  request: Pick<ExplorerRequest, 'queries' | 'displayOptions'>,
  o: { title: string; chartType: ChartType; requestedCurrency?: string | null },
): PageChart {
  const input = chartInputOf(labelQueries(r, request.queries), {
    title: o.title,
    chartType: o.chartType,
    displayOptions: request.displayOptions,
    requestedCurrency: o.requestedCurrency ?? null,
  });
  return { spec: buildChartSpec(input), format: figureFormat(input) };
}

/** The chart a widget draws from its data (an ECharts option or a table). */
export function widgetChart(
  w: Widget,
  r: ExplorerResult,
  requestedCurrency: string | null = null,
): PageChart {
  return pageChart(r, w.source.request, {
    title: w.title || w.key,
    chartType: widgetChartType(w),
    requestedCurrency,
  });
}

/** The spec of `widgetChart`. */
export function widgetSpec(w: Widget, r: ExplorerResult, requestedCurrency: string | null = null): ChartSpec {
  return widgetChart(w, r, requestedCurrency).spec;
}

/** True when the answer has no figure to draw (no series, or only nulls and zeros). */
export function isEmptyResult(r: ExplorerResult): boolean {
  return r.queries.every((q) =>
    q.series.every((s) => (s.total ?? 0) === 0 && s.points.every((p) => (p.value ?? 0) === 0)),
  );
}

/** Dashboards whose name holds `search` (any case); all of them for an empty search. */
export function matchingName<T extends { name: string }>(items: readonly T[], search: string): T[] {
  const q = search.trim().toLowerCase();
  return q ? items.filter((d) => d.name.toLowerCase().includes(q)) : [...items];
}

/** CSS grid placement of a widget on the dashboard's 12-column grid (1-based lines). */
export function gridArea(w: Pick<Widget, 'x' | 'y' | 'w' | 'h'>): { gridColumn: string; gridRow: string } {
  const x = Math.min(Math.max(0, w.x), 11);
  const span = Math.max(1, Math.min(w.w, 12 - x));
  return { gridColumn: `${x + 1} / span ${span}`, gridRow: `${w.y + 1} / span ${Math.max(1, w.h)}` };
}

/** Widgets in reading order (row, then column): the order of the page and of keyboard focus. */
export function readingOrder<T extends Pick<Widget, 'x' | 'y'>>(ws: readonly T[]): T[] {
  return [...ws].sort((a, b) => a.y - b.y || a.x - b.x);
}

/** The dashboard's conditions when they are a where clause (what the widget-data route applies). */
export function dashboardConditions(c: unknown): WhereClause | null {
  if (!c || typeof c !== 'object') return null;
  const o = c as { combinator?: unknown; rules?: unknown };
  if ((o.combinator === 'and' || o.combinator === 'or') && Array.isArray(o.rules)) return o as WhereClause;
  return null;
}

/** A widget's request with another date preset (explicit dates dropped so the preset applies). */
export function withPreset(req: ExplorerRequest, datePreset: string): ExplorerRequest {
  return { ...req, period: { ...req.period, datePreset, startDate: null, endDate: null } };
}

/** Operators that take a list of values; `null`/`notNull` take none; the rest take one text. */
export const LIST_OPERATORS = new Set(['in', 'notIn']);
export const NO_VALUE_OPERATORS = new Set(['null', 'notNull']);

export interface ExplorerFilter {
  field: string;
  operator: string;
  /** The values picked (list operators) or the one text typed (the others). */
  values: string[];
}

export interface ExplorerForm {
  metricId: string;
  /** Up to two dimensions. */
  groupBy: string[];
  filters: ExplorerFilter[];
  /** A preset, or `''` with `startDate` and `endDate` (inclusive). */
  datePreset: string;
  startDate?: string;
  endDate?: string;
  aggBy: string;
  chartType: ChartType;
  /** The previous period beside this one (dashed on the chart, change columns in the table). */
  compare: boolean;
  /** Days forecast after the data's last day; 0: none. */
  forecastDays: number;
  /** An advanced request's queries (an alert's), run instead of the one cost query the form builds. */
  queries?: ExplorerQuery[];
  scopeId?: string;
  /** What the view is (an alert's name): the result's heading. */
  title?: string;
}

/** The explorer's opening view: the cost of the last 3 months by service, by month. */
export const DEFAULT_EXPLORER_FORM: ExplorerForm = {
  metricId: 'cost',
  groupBy: ['service', ''],
  filters: [],
  datePreset: 'LAST_3_MONTHS',
  aggBy: 'Month',
  chartType: 'BAR',
  compare: false,
  forecastDays: 0,
};

const CHART_TYPES: readonly string[] = ['BAR', 'LINE', 'AREA', 'WATERFALL', 'TABLE'];

/** The explorer's form for a URL state (`#/explorer?…`); what the state leaves out is the default's. */
export function formFromUrlState(s: ExplorerUrlState): ExplorerForm {
  const d = DEFAULT_EXPLORER_FORM;
  const custom = Boolean(s.startDate && s.endDate);
  return {
    metricId: s.metricId ?? d.metricId,
    groupBy: s.groupBy ? [s.groupBy[0] ?? '', s.groupBy[1] ?? ''] : [...d.groupBy],
    filters: (s.filters ?? []).map((f) => ({ ...f, values: [...f.values] })),
    datePreset: custom ? '' : (s.datePreset ?? d.datePreset),
    ...(custom ? { startDate: s.startDate!, endDate: s.endDate! } : {}),
    aggBy: s.aggBy ?? (custom ? 'Day' : d.aggBy),
    chartType: s.chartType && CHART_TYPES.includes(s.chartType) ? (s.chartType as ChartType) : d.chartType,
    compare: s.compare === true,
    forecastDays: s.forecastDays ?? 0,
    ...(s.queries ? { queries: s.queries as ExplorerQuery[] } : {}),
    ...(s.scopeId ? { scopeId: s.scopeId } : {}),
    ...(s.title ? { title: s.title } : {}),
  };
}

/** The URL state of the explorer's form: what its address bar shows, to share or bookmark. */
export function urlStateOfForm(f: ExplorerForm): ExplorerUrlState {
  const custom = !f.datePreset && f.startDate && f.endDate;
  const groupBy = f.groupBy.filter(Boolean);
  const filters = f.filters.filter((x) => x.field);
  // Saved queries carry their own metric, grouping and filters: the form's are not part of the view.
  const own = !f.queries?.length;
  return {
    ...(f.title ? { title: f.title } : {}),
    ...(own ? { metricId: f.metricId } : {}),
    ...(own && groupBy.length ? { groupBy } : {}),
    ...(own && filters.length ? { filters } : {}),
    ...(custom ? { startDate: f.startDate!, endDate: f.endDate! } : { datePreset: f.datePreset }),
    aggBy: f.aggBy,
    chartType: f.chartType,
    ...(f.compare ? { compare: true } : {}),
    ...(f.forecastDays > 0 ? { forecastDays: f.forecastDays } : {}),
    ...(f.scopeId ? { scopeId: f.scopeId } : {}),
    ...(f.queries?.length ? { queries: f.queries } : {}),
  };
}

/**
 * Where-clause rules from the explorer's filters (incomplete ones left out): one value for the
 * text operators, the values picked for the list ones, none for `null`/`notNull`.
 */
export function filterRules(filters: readonly ExplorerFilter[]): WhereRule[] {
  const rules: WhereRule[] = [];
  for (const f of filters) {
    if (!f.field || !f.operator) continue;
    if (NO_VALUE_OPERATORS.has(f.operator)) rules.push({ field: f.field, operator: f.operator, value: [] });
    else if (LIST_OPERATORS.has(f.operator)) {
      if (f.values.length) rules.push({ field: f.field, operator: f.operator, value: [...f.values] });
    } else if (f.values[0]) rules.push({ field: f.field, operator: f.operator, value: [f.values[0]] });
  }
  return rules;
}

/** The explorer request of the form: one cost query, as a widget's `advancedExplorer` request. */
export function explorerRequest(f: ExplorerForm): ExplorerRequest {
  const groupBy = f.groupBy.filter(Boolean).slice(0, 2);
  const rules = filterRules(f.filters);
  const period = {
    ...(!f.datePreset && f.startDate && f.endDate
      ? { startDate: f.startDate, endDate: f.endDate, aggBy: f.aggBy }
      : { datePreset: f.datePreset, aggBy: f.aggBy }),
    // The preceding period, preset-aware (docs/queries.md, "Comparison").
    ...(f.compare
      ? { comparisonPeriod: { startDate: null, endDate: null, enabled: true, chartType: 'TABLE' } }
      : {}),
    ...(f.forecastDays > 0 ? { forecastDays: f.forecastDays } : {}),
  };
  if (f.queries?.length)
    return {
      period,
      // The chart picked applies to every query shown.
      queries: f.queries.map((q) => ({ ...q, chartType: f.chartType })),
      ...(f.scopeId ? { scopeId: f.scopeId } : {}),
    };
  return {
    period,
    ...(f.scopeId ? { scopeId: f.scopeId } : {}),
    queries: [
      {
        type: 'cost',
        name: 'a',
        colorIndex: 0,
        chartType: f.chartType,
        metricId: f.metricId,
        groupBy: groupBy.length === 0 ? null : groupBy.length === 1 ? groupBy[0]! : groupBy,
        ...(rules.length ? { whereClause: { combinator: 'and' as const, rules } } : {}),
      },
    ],
  };
}

/** A free widget key (`w1`, `w2`, …) and a place under the dashboard's last row, half width. */
export function newWidget(existing: readonly Widget[], title: string, request: ExplorerRequest): Widget {
  const keys = new Set(existing.map((w) => w.key));
  let n = existing.length + 1;
  while (keys.has(`w${n}`)) n++;
  const bottom = existing.reduce((m, w) => Math.max(m, w.y + w.h), 0);
  return {
    key: `w${n}`,
    x: 0,
    y: bottom,
    w: 6,
    h: 4,
    title,
    source: { type: 'advancedExplorer', request },
  };
}

/** The body of `PUT /dashboard-v2/{id}` (publish) that keeps everything and adds one widget. */
export function publishBody(d: Dashboard, widget: Widget): Record<string, unknown> {
  return {
    ...pickDashboardFields(d),
    widgets: [...d.widgets, widget],
    version: d.version,
  };
}

/** A label candidate of `GET /dimensions/candidates` (the fields the page reads). */
export interface Candidate {
  key: string;
  number_values: number;
  total_cost_key_present: number;
  total_cost_key_absent: number;
  values: { value: string; cost_allocated: number; proportion_cost_allocated: number }[];
  providers: string[];
  ingested?: boolean;
  /** The other keys that differ from `key` only by case or whitespace (the API's `similar_keys`). */
  similar_keys?: string[];
}

export interface CandidateRow {
  key: string;
  values: number;
  /** Share of the cost carrying the key, 0–100, and the rest. */
  presentPct: number;
  absentPct: number;
  present: number;
  absent: number;
  topValues: string[];
  providers: string[];
  ingested: boolean;
  /** The other spellings of the key (case or whitespace only), as the API lists them. */
  similar: string[];
  /**
   * The label the page offers: named after the costliest spelling without its outer spaces (a
   * label name cannot have them), with every spelling as a source, costliest first (on a row that
   * has two spellings, the first source present gives the value). Just this key when it has no
   * other spelling.
   */
  label: { name: string; keys: string[] };
}

/** Candidates for the page: largest cost carrying the key first, shares in percent of the total. */
export function candidateRows(cs: readonly Candidate[]): CandidateRow[] {
  const cost = new Map(cs.map((c) => [c.key, c.total_cost_key_present]));
  const byCost = (a: string, b: string) => (cost.get(b) ?? 0) - (cost.get(a) ?? 0) || a.localeCompare(b);
  return [...cs]
    .sort((a, b) => b.total_cost_key_present - a.total_cost_key_present || a.key.localeCompare(b.key))
    .map((c) => {
      const similar = c.similar_keys ?? [];
      const keys = [c.key, ...similar].sort(byCost);
      const total = c.total_cost_key_present + c.total_cost_key_absent;
      const presentPct = total > 0 ? (c.total_cost_key_present / total) * 100 : 0;
      return {
        key: c.key,
        values: c.number_values,
        presentPct,
        absentPct: total > 0 ? 100 - presentPct : 0,
        present: c.total_cost_key_present,
        absent: c.total_cost_key_absent,
        topValues: [...c.values]
          .sort((a, b) => b.cost_allocated - a.cost_allocated)
          .slice(0, 3)
          .map((v) => v.value),
        providers: c.providers,
        ingested: c.ingested === true,
        similar,
        label: { name: (keys[0] ?? c.key).trim(), keys },
      };
    });
}

/** `POST /dimensions/publish` body publishing one label made of candidate keys, exactly as spelt. */
export function labelPublishBody(name: string, keys: readonly string[]): Record<string, unknown> {
  return {
    scope: 'labels',
    labels: [{ name, columnsMerged: keys.map((key) => ({ name: key, type: 'label' })), maps: [] }],
  };
}
