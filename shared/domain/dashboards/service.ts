import * as v from 'valibot';
import { isAdmin, isTeamMember, type Principal } from '../../auth/principal';
import {
  encodeSnapshot,
  getDashboard,
  getScopes,
  getVersionHead,
  insertDashboard,
  listDashboards,
  listVersionHeads,
  publishDashboardVersion,
  readVersion,
  replaceDashboardMeta,
  SNAPSHOT_ENCODING,
  type VersionHead,
  versionSummary,
  type WriteReport,
} from '../../db/dashboards-repo';
import { getDatasource } from '../../db/datasources-repo';
import type { Page } from '../../db/page';
import { getTeam } from '../../db/teams-repo';
import {
  BadRequestError,
  ConflictError,
  DependencyUnavailableError,
  type FieldIssue,
  ForbiddenError,
  NotFoundError,
  ShapedError,
} from '../../errors';
import { newId } from '../../ids';
import { log } from '../../log';
import { toFieldIssues, validationFailure } from '../../validation';
import { getWarehouseQueries } from '../../warehouse/queries';
import { IdSchema } from '../common/enum-schemas';
import { retryLostRace } from '../common/lost-race';
import { resolveMetricRef } from '../datasources/points';
import { budgetQueryIssue } from '../queries/budget';
import type {
  Dashboard,
  DashboardFields,
  DashboardSummary,
  DashboardVersion,
  DashboardVersionSummary,
} from './model';
import {
  assertJsonSize,
  assertWidgetCount,
  canEdit,
  canView,
  datesOrdered,
  expectedVersion,
  scopeDecision,
  scopeReferences,
  versionToPrune,
} from './rules';
import {
  CreateDashboardBody,
  type DashboardBody,
  PatchDashboardBody,
  PublishDashboardBody,
  type Widget,
} from './schemas';
import {
  expressionIssue,
  label,
  type MetricCatalog,
  type MetricReference,
  metricIssue,
  metricReferences,
  queryPath,
} from './validation';

const now = () => new Date().toISOString();

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
function parseBody<S extends AnySchema>(schema: S, raw: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, raw, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw validationFailure('plain', 'body', toFieldIssues(result.issues).map(friendlier));
}

const invalid = (path: string, message: string) => validationFailure('plain', 'body', [{ path, message }]);

/** 400 when a formula or condition does not parse against its widget's queries, or they form a cycle. */
function assertExpressions(widgets: readonly Widget[]): void {
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
async function assertReferencesExist(orgId: string, widgets: readonly Widget[]): Promise<void> {
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

/**
 * Team and scope assignment, checked against the caller's membership (spec: "Authentication" 6):
 * - team: admins may assign any existing team (unknown: 400); members only a team they are in
 *   (otherwise, or unknown: 403 TEAM_MEMBER_REQUIRED);
 * - scope: see `scopeDecision`; a member is refused with 403 SCOPE_ACCESS_REQUIRED.
 */
async function assertAssignable(
  principal: Principal,
  teamId: string | null | undefined,
  scopes: { scopeId: string; path: string }[],
): Promise<void> {
  if (teamId) {
    const admin = isAdmin(principal);
    if (!admin && !isTeamMember(principal, teamId)) throw new ForbiddenError('TEAM_MEMBER_REQUIRED');
    const team = await getTeam(principal.orgId, teamId);
    // A team being deleted (`deletingAt`) can no longer be assigned.
    if (!team || (team as { deletingAt?: string }).deletingAt) {
      if (admin) throw invalid('teamId', `unknown team ${teamId}`);
      throw new ForbiddenError('TEAM_MEMBER_REQUIRED');
    }
  }
  await assertScopesAssignable(principal, scopes);
}

/**
 * The scope half of `assertAssignable` (see `scopeDecision`): an unknown scope is 400 naming its
 * path for an admin, 403 SCOPE_ACCESS_REQUIRED for a member, as is a scope tied to teams the member
 * is not in. Also the check of a cost alert's `scopeId` (shared/domain/alerts/service.ts).
 */
export async function assertScopesAssignable(
  principal: Principal,
  scopes: readonly { scopeId: string; path: string }[],
): Promise<void> {
  if (!scopes.length) return;
  const found = await getScopes(
    principal.orgId,
    scopes.map((s) => s.scopeId),
  );
  for (const ref of scopes) {
    const decision = scopeDecision(principal, found.get(ref.scopeId));
    if (decision === 'ok') continue;
    if (decision === 'unknown' && isAdmin(principal)) throw invalid(ref.path, `unknown scope ${ref.scopeId}`);
    throw new ForbiddenError('SCOPE_ACCESS_REQUIRED');
  }
}

/** The record's fields in a stable, readable order. */
function present(d: DashboardSummary): DashboardSummary {
  return {
    id: d.id,
    organizationId: d.organizationId,
    name: d.name,
    description: d.description,
    type: d.type,
    teamId: d.teamId,
    scopeId: d.scopeId,
    metricId: d.metricId,
    groupBy: d.groupBy,
    datePreset: d.datePreset,
    startDate: d.startDate,
    endDate: d.endDate,
    conditions: d.conditions,
    currency: d.currency,
    widgetCount: d.widgetCount,
    version: d.version,
    publishedVersion: d.publishedVersion,
    publishedAt: d.publishedAt,
    createdById: d.createdById,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    archivedAt: d.archivedAt ?? null,
  };
}

function fieldsOf(body: DashboardBody): DashboardFields {
  return {
    name: body.name,
    description: body.description,
    type: body.type,
    teamId: body.teamId,
    scopeId: body.scopeId,
    metricId: body.metricId,
    groupBy: body.groupBy,
    datePreset: body.datePreset,
    startDate: body.startDate,
    endDate: body.endDate,
    conditions: body.conditions,
    currency: body.currency,
  };
}

/** The JSON stored as a saved version: every body field, widgets last. */
function versionJson(body: DashboardBody): string {
  const json = JSON.stringify({ ...fieldsOf(body), widgets: body.widgets });
  assertJsonSize(Buffer.byteLength(json), body.conditions);
  return json;
}

function versionHead(
  dashboardId: string,
  version: number,
  principal: Principal,
  body: DashboardBody,
  at: string,
  encoded: ReturnType<typeof encodeSnapshot>,
): VersionHead {
  return {
    dashboardId,
    version,
    name: body.name,
    createdAt: at,
    createdById: principal.principalId,
    widgetCount: body.widgets.length,
    jsonBytes: encoded.jsonBytes,
    partCount: encoded.parts.length,
    storedBytes: encoded.storedBytes,
    encoding: SNAPSHOT_ENCODING,
  };
}

function logWrite(
  what: string,
  d: DashboardSummary,
  report: WriteReport,
  extra: Record<string, unknown> = {},
) {
  log.debug(what, {
    dashboardId: d.id,
    version: d.version,
    publishedVersion: d.publishedVersion,
    consumedWriteUnits: report.consumedWriteUnits,
    ...extra,
  });
}

/** A dashboard the principal may see; anything else, in any organisation, is 404 NOT_FOUND. */
async function loadVisible(principal: Principal, dashboardId: string): Promise<DashboardSummary> {
  const d = await getDashboard(principal.orgId, dashboardId);
  if (!d || !canView(principal, d)) throw new NotFoundError('NOT_FOUND');
  return d;
}

async function loadEditable(principal: Principal, dashboardId: string): Promise<DashboardSummary> {
  const d = await loadVisible(principal, dashboardId);
  if (!canEdit(principal, d)) throw new ForbiddenError('FORBIDDEN');
  return d;
}

/** The widgets of the dashboard's current saved version (re-reading once if it was just replaced). */
async function withWidgets(principal: Principal, d: DashboardSummary): Promise<Dashboard> {
  let current = d;
  for (let attempt = 0; attempt < 2; attempt++) {
    const read = await readVersion<{ widgets: Widget[] }>(
      principal.orgId,
      current.id,
      current.publishedVersion,
    );
    if (read) return { ...present(current), widgets: read.snapshot.widgets };
    current = await loadVisible(principal, d.id);
  }
  throw new Error(`dashboard ${d.id} version ${current.publishedVersion} has missing parts`);
}

const ARCHIVED = () => new ShapedError(409, { error: 'DASHBOARD_ARCHIVED' });

/** POST /dashboard-v2: the dashboard and its version 1, in one transaction. */
export async function createDashboard(principal: Principal, raw: unknown): Promise<Dashboard> {
  assertWidgetCount(raw);
  const body = parseBody(CreateDashboardBody, raw);
  const json = versionJson(body);
  assertExpressions(body.widgets);
  await assertAssignable(principal, body.teamId, scopeReferences(body));
  await assertReferencesExist(principal.orgId, body.widgets);
  const at = now();
  const id = newId('dash');
  const summary: DashboardSummary = present({
    ...fieldsOf(body),
    id,
    organizationId: principal.orgId,
    widgetCount: body.widgets.length,
    version: 1,
    publishedVersion: 1,
    publishedAt: at,
    createdById: principal.principalId,
    createdAt: at,
    updatedAt: at,
    archivedAt: null,
  });
  const encoded = encodeSnapshot(json);
  const report = await insertDashboard(summary, versionHead(id, 1, principal, body, at, encoded), encoded);
  logWrite('dashboard created', summary, report, {
    parts: encoded.parts.length,
    jsonBytes: encoded.jsonBytes,
  });
  return { ...summary, widgets: body.widgets };
}

export interface PublishResult {
  dashboard: Dashboard;
  write: WriteReport;
}

/**
 * PUT /dashboard-v2/{id}: replaces every field (omitted ones take their defaults) and saves a new
 * version. Order of checks: 413 size, 400 body (formulas and conditions included), 404, 403, 409
 * archived, 409 stale version, then team and scope assignment and the metric queries' metricIds. Without a version (body or If-Match) the publish is based on the
 * version read just before, and still refused with 409 if another write lands in between.
 */
export async function publishDashboard(
  principal: Principal,
  dashboardId: string,
  raw: unknown,
  ifMatch?: string,
): Promise<PublishResult> {
  assertWidgetCount(raw);
  const { version: bodyVersion, ...body } = parseBody(PublishDashboardBody, raw);
  const expected = expectedVersion(bodyVersion, ifMatch);
  const json = versionJson(body);
  assertExpressions(body.widgets);
  const current = await loadEditable(principal, dashboardId);
  if (current.archivedAt) throw ARCHIVED();
  if (expected !== undefined && expected !== current.version) throw new ConflictError('VERSION_CONFLICT');
  const next = current.publishedVersion + 1;
  const pruneVersion = versionToPrune(next);
  const [, prune] = await Promise.all([
    assertAssignable(principal, body.teamId, scopeReferences(body)),
    pruneVersion ? getVersionHead(principal.orgId, dashboardId, pruneVersion) : undefined,
  ]);
  await assertReferencesExist(principal.orgId, body.widgets);

  const at = now();
  const summary: DashboardSummary = present({
    ...current,
    ...fieldsOf(body),
    widgetCount: body.widgets.length,
    version: current.version + 1,
    publishedVersion: next,
    publishedAt: at,
    updatedAt: at,
  });
  const encoded = encodeSnapshot(json);
  const write = await publishDashboardVersion(
    summary,
    current.version,
    versionHead(dashboardId, next, principal, body, at, encoded),
    encoded,
    prune,
  );
  logWrite('dashboard published', summary, write, {
    parts: encoded.parts.length,
    jsonBytes: encoded.jsonBytes,
    storedBytes: encoded.storedBytes,
    prunedVersion: prune?.version ?? null,
  });
  return { dashboard: { ...summary, widgets: body.widgets }, write };
}

/**
 * PATCH /dashboard-v2/{id}: metadata and context only, no new saved version. Omitted fields stay;
 * a team or scope that changes is checked like on create.
 */
export async function patchDashboard(
  principal: Principal,
  dashboardId: string,
  raw: unknown,
  ifMatch?: string,
): Promise<Dashboard> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'widgets' in raw) {
    // The spec's metadata-only update: say where widgets go instead of "not an accepted field".
    throw invalid('widgets', 'PATCH changes metadata only; publish widgets with PUT /dashboard-v2/{id}');
  }
  const { version: bodyVersion, ...patch } = parseBody(PatchDashboardBody, raw);
  const changes = Object.fromEntries(
    Object.entries(patch).filter(([, value]) => value !== undefined),
  ) as Partial<DashboardFields>;
  if (!Object.keys(changes).length) throw new BadRequestError('Invalid body: no field to change');
  const expected = expectedVersion(bodyVersion, ifMatch);
  for (let attempt = 0; ; attempt++) {
    const current = await loadEditable(principal, dashboardId);
    if (current.archivedAt) throw ARCHIVED();
    if (expected !== undefined && expected !== current.version) throw new ConflictError('VERSION_CONFLICT');
    const merged: DashboardSummary = present({
      ...current,
      ...changes,
      version: current.version + 1,
      updatedAt: now(),
    });
    if (!datesOrdered(merged.startDate, merged.endDate)) {
      throw invalid('endDate', 'endDate must not be before startDate');
    }
    assertJsonSize(0, merged.conditions);
    const teamChanged = changes.teamId !== undefined && changes.teamId !== current.teamId;
    const scopeChanged = changes.scopeId !== undefined && changes.scopeId !== current.scopeId;
    await assertAssignable(
      principal,
      teamChanged ? changes.teamId : null,
      scopeChanged && changes.scopeId ? [{ scopeId: changes.scopeId, path: 'scopeId' }] : [],
    );
    try {
      const write = await replaceDashboardMeta(merged, current.version);
      logWrite('dashboard patched', merged, write);
      return withWidgets(principal, merged);
    } catch (error) {
      // Without a version from the caller, a lost race is retried on the fresh copy.
      if (await retryLostRace(error, expected, attempt)) continue;
      throw error;
    }
  }
}

/** GET /dashboard-v2/{id}: the record with the current version's widgets. */
export async function readDashboard(principal: Principal, dashboardId: string): Promise<Dashboard> {
  return withWidgets(principal, await loadVisible(principal, dashboardId));
}

export interface ListDashboardsOptions {
  limit: number;
  cursor?: string;
  includeArchived: boolean;
  teamId?: string;
  type?: DashboardSummary['type'];
  /** Only names containing it, ignoring case, over every page (not only the page read). */
  name?: string;
}

/** GET /dashboard-v2: the dashboards the principal may see, newest update first, without widgets. */
export async function listVisibleDashboards(
  principal: Principal,
  opts: ListDashboardsOptions,
): Promise<Page<DashboardSummary>> {
  const page = await listDashboards(
    principal.orgId,
    {
      ...(isAdmin(principal) ? {} : { viewerId: principal.principalId }),
      ...(opts.teamId ? { teamId: opts.teamId } : {}),
      ...(opts.type ? { type: opts.type } : {}),
      ...(opts.name ? { nameContains: opts.name.toLowerCase() } : {}),
      includeArchived: opts.includeArchived,
    },
    opts.limit,
    opts.cursor,
  );
  return { items: page.items.map(present), nextCursor: page.nextCursor };
}

/** GET /dashboard-v2/{id}/versions: saved versions, newest first. */
export async function listDashboardVersions(
  principal: Principal,
  dashboardId: string,
  opts: { limit: number; cursor?: string },
): Promise<Page<DashboardVersionSummary>> {
  await loadVisible(principal, dashboardId);
  const page = await listVersionHeads(principal.orgId, dashboardId, opts.limit, opts.cursor);
  return { items: page.items.map(versionSummary), nextCursor: page.nextCursor };
}

/** GET /dashboard-v2/{id}/versions/{n}: one saved version as published. */
export async function readDashboardVersion(
  principal: Principal,
  dashboardId: string,
  n: number,
): Promise<DashboardVersion> {
  await loadVisible(principal, dashboardId);
  const read = await readVersion<DashboardBody>(principal.orgId, dashboardId, n);
  if (!read) throw new NotFoundError('VERSION_NOT_FOUND');
  return { ...versionSummary(read.head), ...read.snapshot };
}

/** DELETE /dashboard-v2/{id}: archives; archiving an archived dashboard answers it unchanged. */
export async function archiveDashboard(
  principal: Principal,
  dashboardId: string,
  ifMatch?: string,
): Promise<Dashboard> {
  const expected = expectedVersion(undefined, ifMatch);
  for (let attempt = 0; ; attempt++) {
    const current = await loadEditable(principal, dashboardId);
    if (current.archivedAt) return withWidgets(principal, current);
    if (expected !== undefined && expected !== current.version) throw new ConflictError('VERSION_CONFLICT');
    const at = now();
    const archived = present({ ...current, archivedAt: at, updatedAt: at, version: current.version + 1 });
    try {
      const write = await replaceDashboardMeta(archived, current.version);
      logWrite('dashboard archived', archived, write);
      return withWidgets(principal, archived);
    } catch (error) {
      if (await retryLostRace(error, expected, attempt)) continue;
      throw error;
    }
  }
}
