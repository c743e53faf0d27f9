import * as v from 'valibot';
import { getDatasource } from '../../db/datasources-repo';
import { DependencyUnavailableError, type FieldIssue } from '../../errors';
import { log } from '../../log';
import type { Widget } from '../../model/dashboard-schemas';
import { IdSchema } from '../../model/enum-schemas';
import { toFieldIssues, validationFailure } from '../../validation';
import { getWarehouseQueries } from '../../warehouse/queries';
import { resolveMetricRef } from '../datasources/points';
import { budgetQueryIssue } from '../queries/budget';
import {
  expressionIssue,
  label,
  type MetricCatalog,
  type MetricReference,
  metricIssue,
  metricReferences,
  queryPath,
} from './validation';

// The checks of a dashboard body beyond its schema: its expressions, and the metrics and budgets
// its queries name. Each failure is a 400 naming the field.

// biome-ignore lint/suspicious/noExplicitAny: any schema
type AnySchema = v.GenericSchema<any, any>;

/** valibot's generic wording, said in the API's terms. */
function friendlier(issue: FieldIssue): FieldIssue {
  if (/^Invalid key: Expected never but received/.test(issue.message)) {
    return { ...issue, message: 'is not an accepted field' };
  }
  if (/^Invalid key: Expected ".*" but received undefined$/.test(issue.message)) {
    return { ...issue, message: 'is required' };
  }
  return issue;
}

/** Parses a body, answering 400 `{error: 'Invalid body: <path>: <message>'}` on the first issue. */
export function parseBody<S extends AnySchema>(schema: S, raw: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, raw, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw validationFailure('plain', 'body', toFieldIssues(result.issues).map(friendlier));
}

export const invalid = (path: string, message: string) =>
  validationFailure('plain', 'body', [{ path, message }]);

/** 400 when a formula or condition does not parse against its widget's queries, or they form a cycle. */
export function assertExpressions(widgets: readonly Widget[]): void {
  const issue = expressionIssue(widgets);
  if (issue) throw invalid(issue.path, issue.message);
}

/**
 * The organisation's metrics as the metric check sees them: a `metricId` is a datasource when it
 * (or its part before `/`, see `resolveMetricRef`) is a non-archived datasource of the org, else a
 * usage metric when it is one of the org's consumed units. The warehouse is read only then; a
 * failure there is 503 WAREHOUSE_UNAVAILABLE.
 */
function metricCatalog(orgId: string): MetricCatalog {
  return {
    async isDatasource(metricId) {
      const { datasourceId } = resolveMetricRef(metricId);
      if (!v.is(IdSchema, datasourceId)) return false;
      const ds = await getDatasource(orgId, datasourceId);
      return Boolean(ds && !ds.archivedAt);
    },
    async usageUnits() {
      try {
        const metrics = await (await getWarehouseQueries()).usageMetrics(orgId);
        return new Set(metrics.map((m) => m.consumed_unit));
      } catch (error) {
        log.error('dashboard metric check: warehouse query failed', { orgId, error });
        throw new DependencyUnavailableError('WAREHOUSE_UNAVAILABLE', { cause: error });
      }
    },
  };
}

/**
 * 400 when a metric query names neither a datasource nor a usage metric of the organisation. Also
 * the save-time check of cost alerts' metric queries (shared/domain/alerts/service.ts).
 */
export async function assertMetricReferences(orgId: string, refs: readonly MetricReference[]): Promise<void> {
  const issue = await metricIssue(refs, metricCatalog(orgId));
  if (issue) throw invalid(issue.path, issue.message);
}

/** 400 when a metric query's metric or a budget query's budget (or line) is not the organisation's. */
export async function assertReferencesExist(orgId: string, widgets: readonly Widget[]): Promise<void> {
  await assertMetricReferences(orgId, metricReferences(widgets));
  for (const [wi, widget] of widgets.entries()) {
    const issue = await budgetQueryIssue(
      orgId,
      widget.source.request.queries,
      (qi, field) => queryPath(wi, qi, field),
      (query) => label(widget, query),
    );
    if (issue) throw invalid(issue.path, issue.message);
  }
}
