import { isAdmin, type Principal } from '../../auth/principal';
import {
  encodeSnapshot,
  getDashboard,
  getVersionHead,
  insertDashboard,
  listDashboards,
  listVersionHeads,
  publishDashboardVersion,
  readVersion,
  replaceDashboardMeta,
  versionSummary,
  type WriteReport,
} from '../../db/dashboards-repo';
import type { Page } from '../../db/page';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, ShapedError } from '../../errors';
import { newId } from '../../ids';
import {
  CreateDashboardBody,
  type DashboardBody,
  PatchDashboardBody,
  PublishDashboardBody,
  type Widget,
} from '../../model/dashboard-schemas';
import type {
  Dashboard,
  DashboardFields,
  DashboardSummary,
  DashboardVersion,
  DashboardVersionSummary,
} from '../../model/dashboards';
import { changeVersioned, retryLostRace } from '../common/lost-race';
import { assertAssignable } from './assignment';
import { assertExpressions, assertReferencesExist, invalid, parseBody } from './body-checks';
import { fieldsOf, logWrite, present, versionHead, versionJson } from './records';
import {
  assertJsonSize,
  assertWidgetCount,
  canEdit,
  canView,
  datesOrdered,
  expectedVersion,
  scopeReferences,
  versionToPrune,
} from './rules';

// shared/domain/budgets (not part of this split) imports the scope check from here.
export { assertScopesAssignable } from './assignment';

const now = () => new Date().toISOString();

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
  // Without a version from the caller, a lost race is retried on the fresh copy.
  const patched = await changeVersioned({
    expected: expectedVersion(bodyVersion, ifMatch),
    read: async () => {
      const current = await loadEditable(principal, dashboardId);
      if (current.archivedAt) throw ARCHIVED();
      return current;
    },
    version: (current) => current.version,
    change: async (current) => {
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
      return merged;
    },
    replace: async (merged, current) => {
      logWrite('dashboard patched', merged, await replaceDashboardMeta(merged, current.version));
      return merged;
    },
    unchanged: (current) => current,
  });
  return withWidgets(principal, patched);
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
