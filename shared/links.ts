/**
 * Links into the web console, built here and only here: by the alert messages (server side, from
 * the console's base URL in config) and by the console itself (the explorer writes its state into
 * the address bar and reads it back). The console uses hash routes under its base URL, so every
 * link is `<consoleBaseUrl>/#/<route>`: `http://127.0.0.1:3000/console/#/explorer?…` locally,
 * `https://finops.example.com/#/alerts/<id>` behind CloudFront. No Node built-ins: it runs in a
 * browser too.
 *
 * The explorer's state is a query string (an alert's `urlState` is exactly this string):
 *   metric=cost                      the cost metric
 *   groupBy=provider&groupBy=region  up to two dimensions, in order
 *   filter=["service","in","S3"]     one per filter: JSON of [field, operator, ...values]
 *   datePreset=LAST_3_MONTHS         a preset, or
 *   startDate=2026-11-01&endDate=2026-11-20   explicit dates (inclusive), which win over a preset
 *   aggBy=Day                        the granularity
 *   chart=BAR                        the chart type
 *   compare=1                        the previous period drawn beside it (the explorer's comparison)
 *   forecastDays=28                  a forecast of that many days after the data's last day
 *   queries=[…]                      JSON: the queries of an advanced request (an alert's), shown
 *                                    instead of the single query the other fields describe
 *   scopeId=…                        the scope the request runs in
 *   title=…                          what the view is (an alert's name), shown as its heading
 * Unknown keys are ignored and malformed values dropped, so an old or hand-edited link still opens.
 */

export interface ExplorerUrlFilter {
  field: string;
  operator: string;
  values: string[];
}

export interface ExplorerUrlState {
  metricId?: string;
  groupBy?: string[];
  filters?: ExplorerUrlFilter[];
  datePreset?: string;
  startDate?: string;
  endDate?: string;
  aggBy?: string;
  chartType?: string;
  /** Compare with the previous period. */
  compare?: boolean;
  /** Days to forecast after `dataThrough` (1 … 1095). */
  forecastDays?: number;
  queries?: Record<string, unknown>[];
  scopeId?: string;
  title?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The query string (no leading `?`) of an explorer state; keys in a fixed order. */
export function explorerQueryString(s: ExplorerUrlState): string {
  const p = new URLSearchParams();
  if (s.title) p.append('title', s.title);
  if (s.metricId) p.append('metric', s.metricId);
  for (const g of s.groupBy ?? []) if (g) p.append('groupBy', g);
  for (const f of s.filters ?? []) p.append('filter', JSON.stringify([f.field, f.operator, ...f.values]));
  if (s.startDate && s.endDate) {
    p.append('startDate', s.startDate);
    p.append('endDate', s.endDate);
  } else if (s.datePreset) p.append('datePreset', s.datePreset);
  if (s.aggBy) p.append('aggBy', s.aggBy);
  if (s.chartType) p.append('chart', s.chartType);
  if (s.compare) p.append('compare', '1');
  if (s.forecastDays) p.append('forecastDays', String(s.forecastDays));
  if (s.scopeId) p.append('scopeId', s.scopeId);
  if (s.queries?.length) p.append('queries', JSON.stringify(s.queries));
  return p.toString();
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The explorer state a query string (with or without its `?`) describes. */
export function parseExplorerQueryString(qs: string): ExplorerUrlState {
  const p = new URLSearchParams(qs.replace(/^\?/, ''));
  const s: ExplorerUrlState = {};
  const text = (key: string) => p.get(key)?.trim() || undefined;
  const title = text('title');
  if (title) s.title = title;
  const metric = text('metric') ?? text('metricId');
  if (metric) s.metricId = metric;
  const groupBy = p
    .getAll('groupBy')
    .flatMap((g) => g.split(','))
    .map((g) => g.trim())
    .filter(Boolean)
    .slice(0, 2);
  if (groupBy.length) s.groupBy = groupBy;
  const filters: ExplorerUrlFilter[] = [];
  for (const raw of p.getAll('filter')) {
    const v = json(raw);
    if (!Array.isArray(v) || v.length < 2 || !v.every((x) => typeof x === 'string')) continue;
    const [field, operator, ...values] = v as string[];
    if (field && operator) filters.push({ field, operator, values });
  }
  if (filters.length) s.filters = filters;
  const start = text('startDate');
  const end = text('endDate');
  if (start && end && DAY.test(start) && DAY.test(end) && start <= end) {
    s.startDate = start;
    s.endDate = end;
  } else {
    const preset = text('datePreset');
    if (preset) s.datePreset = preset;
  }
  const aggBy = text('aggBy');
  if (aggBy) s.aggBy = aggBy;
  const chart = text('chart') ?? text('chartType');
  if (chart) s.chartType = chart;
  if (p.get('compare') === '1' || p.get('compare') === 'true') s.compare = true;
  const forecastDays = Number(text('forecastDays'));
  // Its upper bound is the query model's (a 400 names it).
  if (Number.isInteger(forecastDays) && forecastDays >= 1) s.forecastDays = forecastDays;
  const scopeId = text('scopeId');
  if (scopeId) s.scopeId = scopeId;
  const queries = json(p.get('queries') ?? '');
  if (
    Array.isArray(queries) &&
    queries.length > 0 &&
    queries.every((q) => q && typeof q === 'object' && !Array.isArray(q) && typeof q.name === 'string')
  )
    s.queries = queries as Record<string, unknown>[];
  return s;
}

/** A console route (`explorer?…`, `alerts/<id>`) as a link under the console's base URL. */
export function consoleLink(consoleBaseUrl: string, route: string): string {
  return `${consoleBaseUrl.replace(/\/+$/, '')}/#/${route.replace(/^[#/]+/, '')}`;
}

/** The explorer opened on a state. */
export function explorerLink(consoleBaseUrl: string, state: ExplorerUrlState): string {
  const qs = explorerQueryString(state);
  return consoleLink(consoleBaseUrl, qs ? `explorer?${qs}` : 'explorer');
}

/** An alert's page (`null`: the alerts list). */
export function alertPageLink(consoleBaseUrl: string, alertId: string | null): string {
  return consoleLink(consoleBaseUrl, alertId ? `alerts/${encodeURIComponent(alertId)}` : 'alerts');
}

/** What a budget's page is opened on: a month other than the current one, a line to mark. */
export interface BudgetPageState {
  /** `YYYY-MM`; absent: the current month in the organisation's zone. */
  month?: string;
  /** A line's value; absent or null: the budget's total. */
  line?: string | null;
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The route of a budget's page: `budgets/<id>`, then `?month=YYYY-MM&line=<value>` when given. */
export function budgetPageRoute(budgetId: string, s: BudgetPageState = {}): string {
  const p = new URLSearchParams();
  if (s.month) p.append('month', s.month);
  if (s.line !== undefined && s.line !== null) p.append('line', s.line);
  const qs = p.toString();
  return `budgets/${encodeURIComponent(budgetId)}${qs ? `?${qs}` : ''}`;
}

/** The state a budget page's query string (with or without its `?`) describes; a bad month is dropped. */
export function parseBudgetPageQuery(qs: string): BudgetPageState {
  const p = new URLSearchParams(qs.replace(/^\?/, ''));
  const s: BudgetPageState = {};
  const month = p.get('month')?.trim();
  if (month && MONTH.test(month)) s.month = month;
  const line = p.get('line');
  if (line !== null) s.line = line;
  return s;
}

/** A budget's page in the console (`#/budgets/<id>`): its month's status table and its alerts. */
export function budgetPageLink(consoleBaseUrl: string, budgetId: string, s: BudgetPageState = {}): string {
  return consoleLink(consoleBaseUrl, budgetPageRoute(budgetId, s));
}
