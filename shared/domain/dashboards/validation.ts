import type { Widget } from '../../model/dashboard-schemas';
import type { Query } from '../../model/query-model';
import { isCommitmentMetricId } from '../commitments/metric-ids';
import { ExpressionError, parseExpression } from '../common/expr';

/**
 * Save-time checks of a dashboard's queries (POST /dashboard-v2, PUT /dashboard-v2/{id}) beyond the
 * schema: every `formula` and `condition` parses against the query names of its widget's request,
 * formulas and conditions do not refer to each other in a cycle, and every `metric` query's
 * `metricId` names a metrics datasource or a usage metric of the organisation. Each problem is
 * reported at its body path with the widget key and the query name, e.g.
 * `widgets.0.source.request.queries.2.formula: widget "k1", query "c": unknown query 'foo' at 4`.
 */
export interface QueryIssue {
  path: string;
  message: string;
}

export const queryPath = (widgetIndex: number, queryIndex: number, field: string) =>
  `widgets.${widgetIndex}.source.request.queries.${queryIndex}.${field}`;

export const label = (widget: Widget, query: { name: string }) =>
  `widget "${widget.key}", query "${query.name}"`;

type ExpressionQuery = Extract<Query, { type: 'formula' | 'condition' }>;

const expressionOf = (q: ExpressionQuery) => (q.type === 'formula' ? q.formula : q.expression);
const fieldOf = (q: ExpressionQuery) => (q.type === 'formula' ? 'formula' : 'expression');

/**
 * Parses every formula and condition of every widget against its request's query names, then looks
 * for cycles among them. Pure; answers the first problem found (widgets and queries in order), or
 * undefined.
 */
export function expressionIssue(widgets: readonly Widget[]): QueryIssue | undefined {
  for (const [wi, widget] of widgets.entries()) {
    const issue = queryListExpressionIssue(
      widget.source.request.queries,
      (qi, field) => queryPath(wi, qi, field),
      (query) => label(widget, query),
    );
    if (issue) return issue;
  }
  return undefined;
}

/**
 * The same check for one list of queries (a widget's request, a cost alert's `queries`): `at` says
 * where a query's field sits in the body, `labelOf` how a message names the query.
 */
export function queryListExpressionIssue(
  queries: readonly Query[],
  at: (queryIndex: number, field: string) => string,
  labelOf: (query: { name: string }) => string,
): QueryIssue | undefined {
  const names = queries.map((q) => q.name);
  const refs = new Map<string, string[]>();
  for (const [qi, query] of queries.entries()) {
    if (query.type !== 'formula' && query.type !== 'condition') continue;
    try {
      refs.set(query.name, parseExpression(expressionOf(query), { names }).refs);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return { path: at(qi, fieldOf(query)), message: `${labelOf(query)}: ${error.message}` };
    }
  }
  const cycle = findCycle(refs);
  if (cycle) {
    const qi = names.indexOf(cycle[0] as string);
    const query = queries[qi] as ExpressionQuery;
    return {
      path: at(qi, fieldOf(query)),
      message: `${labelOf(query)}: formulas and conditions refer to each other in a cycle: ${cycle.join(' → ')}`,
    };
  }
  return undefined;
}

/**
 * A cycle in the reference graph of the expression queries (`refs`: name → names it reads; names
 * that are not keys are cost or metric queries and end a path), as the list of names from its
 * first node back to it (`c → d → c`; a self-reference is `c → c`), or undefined.
 */
export function findCycle(refs: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const s = state.get(name);
    if (s === 'done') return undefined;
    if (s === 'open') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'open');
    stack.push(name);
    for (const next of refs.get(name) ?? []) {
      if (!refs.has(next)) continue;
      const found = visit(next);
      if (found) return found;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  // At most 50 queries per request (QUERY_LIMITS), so the recursion stays shallow.
  for (const name of refs.keys()) {
    const found = visit(name);
    if (found) return found;
  }
  return undefined;
}

/** A `metric` query's reference, with where it sits in the body and how a message names it. */
export interface MetricReference {
  metricId: string;
  path: string;
  /** `widget "k1", query "m"` on a dashboard; `query "m"` on a cost alert. */
  label: string;
}

export function metricReferences(widgets: readonly Widget[]): MetricReference[] {
  return widgets.flatMap((widget, wi) =>
    queryListMetricReferences(
      widget.source.request.queries,
      (qi, field) => queryPath(wi, qi, field),
      (query) => label(widget, query),
    ),
  );
}

/** The metric queries of one list of queries (see `queryListExpressionIssue` for `at` and `labelOf`). */
export function queryListMetricReferences(
  queries: readonly Query[],
  at: (queryIndex: number, field: string) => string,
  labelOf: (query: { name: string }) => string,
): MetricReference[] {
  const out: MetricReference[] = [];
  for (const [qi, query] of queries.entries()) {
    // A commitment metric is the service's own (docs/commitments.md), not the organisation's.
    if (query.type !== 'metric' || isCommitmentMetricId(query.metricId)) continue;
    out.push({ metricId: query.metricId, path: at(qi, 'metricId'), label: labelOf(query) });
  }
  return out;
}

/** What the metric check asks of the organisation's data (injected so the rule is testable alone). */
export interface MetricCatalog {
  /** Whether `metricId` names a non-archived metrics datasource of the organisation. */
  isDatasource(metricId: string): Promise<boolean>;
  /** The organisation's usage metrics (consumed units); read at most once, and only when needed. */
  usageUnits(): Promise<ReadonlySet<string>>;
}

/**
 * The first metric query whose `metricId` is neither a datasource nor a usage metric, or
 * undefined. Each distinct id is looked up once; the usage metrics are read only when some id is
 * not a datasource (so a dashboard without metric queries never touches the warehouse).
 */
export async function metricIssue(
  refs: readonly MetricReference[],
  catalog: MetricCatalog,
): Promise<QueryIssue | undefined> {
  if (!refs.length) return undefined;
  const ids = [...new Set(refs.map((r) => r.metricId))];
  const isDatasource = await Promise.all(ids.map((id) => catalog.isDatasource(id)));
  const rest = new Set(ids.filter((_, i) => !isDatasource[i]));
  if (!rest.size) return undefined;
  const units = await catalog.usageUnits();
  const bad = refs.find((r) => rest.has(r.metricId) && !units.has(r.metricId));
  if (!bad) return undefined;
  return {
    path: bad.path,
    message:
      `${bad.label}: unknown metric "${bad.metricId}": ` +
      'not a metrics datasource of the organisation (an id, or id/metric) nor a usage metric (a consumed unit listed by GET /queries/usage-metrics)',
  };
}
