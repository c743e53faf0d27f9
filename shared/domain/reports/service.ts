import * as v from 'valibot';
import { isAdmin, isTeamMember, type Principal } from '../../auth/principal';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import type { Page } from '../../db/page';
import { upgradeWidgets } from '../../db/reports-legacy';
import { getReport, insertReport, listDeliveries, listReports, replaceReport } from '../../db/reports-repo';
import { getTeam } from '../../db/teams-repo';
import { type FieldIssue, ForbiddenError, NotFoundError, ShapedError, ValidationError } from '../../errors';
import { newId } from '../../ids';
import type { Dashboard } from '../../model/dashboards';
import { type CreateReportInput, PatchReportBody, type PatchReportInput } from '../../model/report-schemas';
import type { Report, ReportDelivery } from '../../model/reports';
import { toFieldIssues } from '../../validation';
import { changeVersioned } from '../common/lost-race';
import { readDashboard } from '../dashboards/service';
import { budgetQueryIssue } from '../queries/budget';
import type { Enqueue } from './delivery';
import { canEdit, canView, needsTeamMembershipToDuplicate, scheduleIssues } from './rules';
import { isDeliverable, nextRunAfter, scheduleChanged } from './schedule';

const now = () => new Date().toISOString();

/** The next run of a report as it will be stored: null unless the sweep should deliver it. */
export async function computeNextRun(
  report: Pick<Report, 'organizationId' | 'status' | 'scheduledPeriod' | 'scheduledWeekday' | 'archivedAt'>,
  after: Date,
): Promise<string | null> {
  if (!isDeliverable(report)) return null;
  const timeZone = await getOrganizationTimezone(report.organizationId);
  return nextRunAfter(report, after, { timeZone: timeZone ?? null });
}

async function assertTeamAssignable(principal: Principal, teamId: string | null): Promise<void> {
  if (!teamId) return;
  const team = await getTeam(principal.orgId, teamId);
  // A team being deleted (`deletingAt`) can no longer be assigned, as for dashboards.
  if (!team || team.deletingAt) {
    if (isAdmin(principal))
      throw new ValidationError(`teamId: unknown team ${teamId}`, [
        { path: 'teamId', message: 'unknown team' },
      ]);
    throw new ForbiddenError('TEAM_MEMBER_REQUIRED');
  }
  if (!isAdmin(principal) && !isTeamMember(principal, teamId))
    throw new ForbiddenError('TEAM_MEMBER_REQUIRED');
}

function assertSchedule(report: Pick<Report, 'scheduledPeriod' | 'scheduledWeekday'>): void {
  const issues = scheduleIssues(report);
  if (issues.length) throw new ValidationError(`${issues[0]!.path}: ${issues[0]!.message}`, issues);
}

/**
 * Every dashboard the widgets name (a GRAPH_SNAPSHOT of a dashboard widget, a DASHBOARD_PDF) must be
 * visible to the principal writing the report, and a snapshot's widget must exist on it: a delivery
 * reads dashboards as its organisation, so without this check a member could have a colleague's
 * PRIVATE dashboard mailed to them. A dashboard the principal cannot see is answered exactly as one
 * that does not exist (400 `VALIDATION_ERROR`, "unknown dashboard"), so its existence does not leak.
 */
async function assertDashboardsVisible(
  principal: Principal,
  widgets: readonly Report['widgets'][number][],
): Promise<void> {
  const read = new Map<string, Promise<Dashboard | null>>();
  const visible = (id: string) => {
    let p = read.get(id);
    if (!p) {
      p = readDashboard(principal, id).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      });
      read.set(id, p);
    }
    return p;
  };
  const issues: FieldIssue[] = [];
  for (const [i, w] of widgets.entries()) {
    if (w.type !== 'DASHBOARD_PDF' && w.type !== 'GRAPH_SNAPSHOT') continue;
    if (!w.dashboardId) continue;
    const d = await visible(w.dashboardId);
    if (!d) issues.push({ path: `widgets.${i}.dashboardId`, message: 'unknown dashboard' });
    else if (w.type === 'GRAPH_SNAPSHOT' && !d.widgets.some((x) => x.key === w.widgetKey))
      issues.push({ path: `widgets.${i}.widgetKey`, message: 'the dashboard has no widget with this key' });
  }
  if (issues.length) throw new ValidationError(`${issues[0]!.path}: ${issues[0]!.message}`, issues);
}

/**
 * 400 when a GRAPH_SNAPSHOT's budget query names a budget that is not the organisation's, or a
 * `line` its budget does not have (the check dashboards and cost alerts make at save time).
 */
async function assertBudgetReferences(
  orgId: string,
  widgets: readonly Report['widgets'][number][],
): Promise<void> {
  for (const [i, w] of widgets.entries()) {
    if (w.type !== 'GRAPH_SNAPSHOT' || !w.queries) continue;
    const issue = await budgetQueryIssue(
      orgId,
      w.queries,
      (qi, field) => `widgets.${i}.queries.${qi}.${field}`,
      (q) => `query "${q.name}"`,
    );
    if (issue) throw new ValidationError(`${issue.path}: ${issue.message}`, [issue]);
  }
}

/**
 * Loads a report the principal may see; any other report, in any organisation, is NOT_FOUND.
 * `preloaded` is a read already made for this organisation (see `prefetchReport`).
 */
async function loadVisible(
  principal: Principal,
  reportId: string,
  preloaded?: Report | null,
): Promise<Report> {
  const report = preloaded === undefined ? await getReport(principal.orgId, reportId) : preloaded;
  if (!report || !canView(principal, report)) throw new NotFoundError('NOT_FOUND');
  return report;
}

/** What a new report (created or a copy) starts with: the caller's, version 1, not scheduled yet. */
function newRecord(principal: Principal, at: string) {
  return {
    createdById: principal.principalId,
    createdAt: at,
    updatedAt: at,
    archivedAt: null,
    version: 1,
    nextRunAt: null,
  } satisfies Partial<Report>;
}

export async function createReport(principal: Principal, input: CreateReportInput): Promise<Report> {
  await assertTeamAssignable(principal, input.teamId);
  assertSchedule(input);
  await assertDashboardsVisible(principal, input.widgets);
  await assertBudgetReferences(principal.orgId, input.widgets);
  const at = now();
  const report: Report = {
    id: newId('rep'),
    organizationId: principal.orgId,
    name: input.name,
    description: input.description,
    type: input.type,
    teamId: input.teamId,
    context: input.context,
    scheduledPeriod: input.scheduledPeriod,
    scheduledWeekday: input.scheduledWeekday,
    status: input.status,
    widgets: input.widgets,
    destinations: input.destinations,
    ...newRecord(principal, at),
  };
  report.nextRunAt = await computeNextRun(report, new Date(at));
  await insertReport(report);
  return report;
}

/** The raw read behind `readReport`, for a handler to start before the principal is known. */
export async function prefetchReport(orgId: string, reportId: string): Promise<Report | null> {
  return (await getReport(orgId, reportId)) ?? null;
}

export async function readReport(
  principal: Principal,
  reportId: string,
  preloaded?: Report | null,
): Promise<Report> {
  return loadVisible(principal, reportId, preloaded);
}

export interface ListReportsOptions {
  limit: number;
  cursor?: string;
  includeArchived: boolean;
  teamId?: string;
  type?: Report['type'];
}

/**
 * A page of the reports the principal may see. Filters apply after each read; the page is filled
 * from further reads (up to MAX_LIST_READS), so it is short only when the reports run out or
 * many invisible ones sit in between (then `nextCursor` is still set).
 */
export async function listVisibleReports(
  principal: Principal,
  opts: ListReportsOptions,
): Promise<Page<Report>> {
  const visible = (r: Report) =>
    canView(principal, r) &&
    (opts.includeArchived || !r.archivedAt) &&
    (!opts.teamId || r.teamId === opts.teamId) &&
    (!opts.type || r.type === opts.type);
  // Reads on until the page is full, asking each time only for what is still missing so the
  // cursor never skips an item; a bounded number of reads keeps one request cheap.
  const items: Report[] = [];
  let cursor = opts.cursor;
  for (let read = 0; read < MAX_LIST_READS; read++) {
    const page = await listReports(principal.orgId, opts.limit - items.length, cursor);
    items.push(...page.items.filter(visible));
    cursor = page.nextCursor ?? undefined;
    if (!cursor || items.length >= opts.limit) break;
  }
  return { items, nextCursor: cursor ?? null };
}

/** Reads of the index one list request may make before it answers a short page with a cursor. */
const MAX_LIST_READS = 5;

function parsePatch(raw: unknown): PatchReportInput {
  const result = v.safeParse(PatchReportBody, raw, { abortPipeEarly: true });
  if (result.success) return result.output;
  const issues = toFieldIssues(result.issues);
  throw new ValidationError(`${issues[0]?.path}: ${issues[0]?.message}`, issues);
}

/** `"3"`, `W/"3"` or `3` make the write conditional on that version; `*` (any version) does not. */
function parseIfMatch(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const n = Number(ifMatch.replaceAll('"', '').replace(/^W\//, ''));
  if (!Number.isInteger(n) || n < 1)
    throw new ValidationError('If-Match must be a report version number', []);
  return n;
}

function definedEntries<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** JSON with object keys sorted, so that two equal values give the same text whatever their key order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** True when two reports hold the same editable fields (what a PATCH can change). */
function sameContent(a: Report, b: Report): boolean {
  const pick = (r: Report) => [
    r.name,
    r.description,
    r.type,
    r.teamId,
    r.context,
    r.scheduledPeriod,
    r.scheduledWeekday,
    r.status,
    r.widgets,
    r.destinations,
  ];
  return stableJson(pick(a)) === stableJson(pick(b));
}

/**
 * PATCH semantics from the spec: omitted fields unchanged (also inside `context`, which is merged
 * field by field); `widgets` and `destinations` replace the stored lists; WEEKLY needs a weekday
 * from the body or the stored report. A PATCH that changes nothing writes nothing. Checks run in the
 * order not-found, forbidden, archived (409 whatever the body), then validation. With
 * `If-Match: "<n>"` a stale version is a 409; without one, or with `*`, last writer wins
 * (`retryLostRace`).
 */
export async function patchReport(
  principal: Principal,
  reportId: string,
  /** The body, read only once the report may be patched (an archived one is a 409 whatever it is). */
  readBody: () => Promise<unknown>,
  ifMatch?: string,
): Promise<Report> {
  return changeVersioned({
    expected: parseIfMatch(ifMatch),
    read: async () => {
      const current = await loadVisible(principal, reportId);
      if (!canEdit(principal, current)) throw new ForbiddenError('FORBIDDEN');
      if (current.archivedAt) throw new ShapedError(409, { error: 'REPORT_ARCHIVED' });
      return { current, patch: parsePatch(upgradeWidgets(await readBody())) };
    },
    version: ({ current }) => current.version,
    change: async ({ current, patch }) => {
      if (patch.teamId !== undefined && patch.teamId !== current.teamId)
        await assertTeamAssignable(principal, patch.teamId);
      const { context, ...fields } = patch;
      const merged: Report = {
        ...current,
        ...definedEntries(fields),
        // `context` is merged field by field: a partial context leaves the other fields as stored.
        context: { ...current.context, ...(context ? definedEntries(context) : {}) },
        updatedAt: current.updatedAt,
        version: current.version,
      };
      assertSchedule(merged);
      // Nothing would change (an empty body, or the stored values sent back): answer the stored
      // report without a write, so the version does not move and concurrent editors see no conflict.
      if (sameContent(merged, current)) return null;
      // New widgets or new recipients: whoever makes the change must see every dashboard delivered.
      if (patch.widgets !== undefined || patch.destinations !== undefined)
        await assertDashboardsVisible(principal, merged.widgets);
      if (patch.widgets !== undefined) await assertBudgetReferences(principal.orgId, merged.widgets);
      merged.updatedAt = now();
      merged.version = current.version + 1;
      // The schedule moved (cadence, weekday, status): the next run is computed again from now.
      if (scheduleChanged(merged, current) || (isDeliverable(merged) && !merged.nextRunAt))
        merged.nextRunAt = await computeNextRun(merged, new Date(merged.updatedAt));
      return merged;
    },
    replace: async (merged, { current }) => {
      await replaceReport(merged, current.version);
      return merged;
    },
    unchanged: ({ current }) => current,
  });
}

export async function duplicateReport(
  principal: Principal,
  reportId: string,
  name: string,
): Promise<{ reportId: string }> {
  const source = await loadVisible(principal, reportId);
  if (needsTeamMembershipToDuplicate(principal, source)) throw new ForbiddenError('TEAM_MEMBER_REQUIRED');
  const at = now();
  const copy: Report = {
    ...source,
    id: newId('rep'),
    name,
    // A copy of a template is the caller's own draft; a copy never starts delivering on its own.
    type: source.type === 'TEMPLATE' ? 'PRIVATE' : source.type,
    status: 'INACTIVE',
    ...newRecord(principal, at),
  };
  await insertReport(copy);
  return { reportId: copy.id };
}

/** Archiving is idempotent: archiving an archived report answers the stored record. */
export async function archiveReport(principal: Principal, reportId: string): Promise<Report> {
  const current = await loadVisible(principal, reportId);
  if (!canEdit(principal, current)) throw new ForbiddenError('FORBIDDEN');
  if (current.archivedAt) return current;
  const at = now();
  const archived: Report = {
    ...current,
    archivedAt: at,
    updatedAt: at,
    version: current.version + 1,
    nextRunAt: null,
  };
  await replaceReport(archived, current.version);
  return archived;
}

/** A create body: widgets given with the first release's names are upgraded, then validated. */
export function upgradeCreateBody(raw: unknown): unknown {
  return upgradeWidgets(raw);
}

/**
 * `POST /reports/{id}/send`: queues a run now, whatever the schedule or status (not for an archived
 * report). Editors only, since it mails every destination. The run's key is the report and this
 * instant, so each send is its own run.
 */
export async function sendReportNow(
  principal: Principal,
  reportId: string,
  enqueue: Enqueue,
  at = new Date(),
): Promise<{ reportId: string; runAt: string; destinations: number }> {
  const report = await loadVisible(principal, reportId);
  if (!canEdit(principal, report)) throw new ForbiddenError('FORBIDDEN');
  if (report.archivedAt) throw new ShapedError(409, { error: 'REPORT_ARCHIVED' });
  const destinations = report.destinations.reduce((n, d) => n + new Set(d.destinationValues).size, 0);
  if (!destinations)
    throw new ValidationError('destinations: the report has no destination to send to', [
      { path: 'destinations', message: 'the report has no destination to send to' },
    ]);
  const runAt = at.toISOString();
  await enqueue({
    type: 'report-delivery',
    orgId: report.organizationId,
    reportId: report.id,
    runAt,
    trigger: 'MANUAL',
  });
  return { reportId: report.id, runAt, destinations };
}

/** `GET /reports/{id}/deliveries`: the delivery log of a report the caller may see, newest run first. */
export async function listReportDeliveries(
  principal: Principal,
  reportId: string,
  opts: { limit: number; cursor?: string },
): Promise<Page<ReportDelivery>> {
  await loadVisible(principal, reportId);
  return listDeliveries(principal.orgId, reportId, opts.limit, opts.cursor);
}
