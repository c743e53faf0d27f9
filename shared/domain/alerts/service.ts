import { isAdmin, type Principal } from '../../auth/principal';
import { config } from '../../config';
import {
  getAlert,
  getThresholds,
  insertAlert,
  listAlerts,
  listEvaluations,
  replaceAlert,
} from '../../db/alerts-repo';
import type { Page } from '../../db/page';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../errors';
import { newId } from '../../ids';
import {
  type AlertEvaluation,
  type AlertThreshold,
  type CostAlert,
  type StoredAlert,
  toRecord,
} from '../../model/alerts';
import type { WebhookPolicy } from '../../net/address-policy';
import { validationFailure } from '../../validation';
import { changeVersioned } from '../common/lost-race';
import { assertScopesAssignable } from '../dashboards/assignment';
import { assertMetricReferences } from '../dashboards/body-checks';
import { queryListExpressionIssue, queryListMetricReferences } from '../dashboards/validation';
import { budgetQueryIssue } from '../queries/budget';
import { alertLifecycle } from './lifecycle';
import { type AlertFields, alertFields } from './rules';
import type { CreateAlertInput } from './schemas';
import { createEngineSeriesSource } from './series-source';
import { type AlertWidgetSeries, widgetSeries } from './widget-series';

/** The 404 body of the spec for an alert that does not exist for the caller. */
export const ALERT_NOT_FOUND = 'Alert not found';

export function webhookPolicy(): WebhookPolicy {
  const c = config();
  return { allowedHosts: c.teamsAllowedHosts, localCaptureOrigin: c.teamsLocalCaptureOrigin };
}

const queryPath = (queryIndex: number, field: string) => `queries.${queryIndex}.${field}`;
const queryLabel = (query: { name: string }) => `query "${query.name}"`;

/**
 * The save-time checks of an alert body that read the organisation's data, as dashboards make them
 * (create, update and backtest alike):
 * - `scopeId` against the caller's membership (spec "Authentication" 6, `assertScopesAssignable`):
 *   an admin may use any scope of the organisation (unknown: 400 naming `scopeId`); a member one tied
 *   to no team or to a team they are in, anything else (unknown included) is 403
 *   SCOPE_ACCESS_REQUIRED;
 * - formulas (and condition queries) parse against the alert's query names, without cycles: 400
 *   naming `queries.<i>.formula`;
 * - every metric query's `metricId` names a metrics datasource (id or id/metric, not archived) or a
 *   usage metric of the organisation: 400 naming `queries.<i>.metricId`;
 * - every budget query names a budget of the organisation and, with `line`, one of its lines: 400
 *   naming `queries.<i>.budgetId` or `.line`.
 * Nothing is stored when one fails.
 */
export async function assertAlertReferences(principal: Principal, fields: AlertFields): Promise<void> {
  const issue = queryListExpressionIssue(fields.queries, queryPath, queryLabel);
  if (issue) throw validationFailure('plain', 'body', [issue]);
  await assertScopesAssignable(
    principal,
    fields.scopeId ? [{ scopeId: fields.scopeId, path: 'scopeId' }] : [],
  );
  await assertMetricReferences(
    principal.orgId,
    queryListMetricReferences(fields.queries, queryPath, queryLabel),
  );
  const budget = await budgetQueryIssue(principal.orgId, fields.queries, queryPath, queryLabel);
  if (budget) throw validationFailure('plain', 'body', [budget]);
}

function thresholdsOf(alertId: string, fields: AlertFields): AlertThreshold[] {
  return fields.thresholds.map((t) => ({
    id: newId('thr'),
    costAlertId: alertId,
    budgetAlertId: null,
    ...t,
  }));
}

function stored(fields: AlertFields): Omit<AlertFields, 'thresholds'> {
  const { thresholds: _, ...rest } = fields;
  return rest;
}

/**
 * A new alert and its thresholds as they are stored, from validated fields; `nextEvalAt` null keeps
 * it off the due index (a backtest's alert is never stored at all).
 */
export function newAlert(
  principal: Principal,
  fields: AlertFields,
  at: string,
  nextEvalAt: string | null,
): { alert: StoredAlert; thresholds: AlertThreshold[] } {
  const id = newId('alrt');
  const alert: StoredAlert = {
    id,
    organizationId: principal.orgId,
    createdById: principal.principalId,
    createdAt: at,
    archivedAt: null,
    snoozedUntil: null,
    ...stored(fields),
    updatedAt: at,
    version: 1,
    nextEvalAt,
  };
  return { alert, thresholds: thresholdsOf(id, fields) };
}

export async function createAlert(
  principal: Principal,
  input: CreateAlertInput,
  now = new Date(),
): Promise<CostAlert> {
  const fields = alertFields(input, webhookPolicy());
  await assertAlertReferences(principal, fields);
  const at = now.toISOString();
  // Due at once: the next sweep evaluates it on the last complete day.
  const { alert, thresholds } = newAlert(principal, fields, at, at);
  await insertAlert(alert, thresholds);
  return toRecord(alert);
}

async function load(orgId: string, alertId: string): Promise<StoredAlert> {
  const alert = await getAlert(orgId, alertId);
  if (!alert) throw new NotFoundError(ALERT_NOT_FOUND);
  return alert;
}

/** Changing an alert (cost or budget): its creator or an admin (any member may read it). */
function assertCanEdit(principal: Principal, alert: Pick<StoredAlert, 'createdById'>): void {
  if (!isAdmin(principal) && alert.createdById !== principal.principalId)
    throw new ForbiddenError('FORBIDDEN');
}

export interface WidgetData extends CostAlert {
  thresholds: AlertThreshold[];
  /** The last 30 complete days with the rule drawn over them; null without recent billing data. */
  series: AlertWidgetSeries | null;
}

/**
 * The record, its thresholds and its recent series (the spec's widget-data read); 404 'Alert not
 * found' otherwise.
 */
export async function readWidgetData(
  principal: Principal,
  alertId: string,
  now: Date = new Date(),
): Promise<WidgetData> {
  const [alert, thresholds] = await Promise.all([
    getAlert(principal.orgId, alertId),
    getThresholds(principal.orgId, alertId),
  ]);
  if (!alert || alert.variant === 'COMMITMENT_EXPIRY') throw new NotFoundError(ALERT_NOT_FOUND);
  thresholds.sort((a, b) => (a.id < b.id ? -1 : 1));
  const series = await widgetSeries(alert, thresholds, createEngineSeriesSource(), now);
  return { ...toRecord(alert), thresholds, series };
}

export async function readAlert(
  principal: Principal,
  alertId: string,
): Promise<{ alert: CostAlert; version: number }> {
  const alert = await load(principal.orgId, alertId);
  return { alert: toRecord(alert), version: alert.version };
}

const MAX_LIST_READS = 5;

/**
 * A page of the organisation's stored alerts that `keep` keeps, newest first; archived ones only
 * with `includeArchived` (cost alerts here, expiring-commitment alerts in `commitments/`).
 */
export async function listStoredAlertsPage(
  orgId: string,
  opts: { limit: number; cursor?: string; includeArchived: boolean },
  keep: (alert: StoredAlert) => boolean,
): Promise<Page<StoredAlert>> {
  const items: StoredAlert[] = [];
  let cursor = opts.cursor;
  for (let read = 0; read < MAX_LIST_READS; read++) {
    const page = await listAlerts(orgId, opts.limit - items.length, cursor);
    items.push(...page.items.filter((a) => keep(a) && (opts.includeArchived || !a.archivedAt)));
    cursor = page.nextCursor ?? undefined;
    if (!cursor || items.length >= opts.limit) break;
  }
  return { items, nextCursor: cursor ?? null };
}

/** A page of the organisation's cost alerts (expiring-commitment alerts have their own list). */
export async function listAlertsPage(
  principal: Principal,
  opts: { limit: number; cursor?: string; includeArchived: boolean },
): Promise<Page<CostAlert>> {
  const page = await listStoredAlertsPage(principal.orgId, opts, (a) => a.variant !== 'COMMITMENT_EXPIRY');
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}

/** `"3"`, `W/"3"` or `3` make a write conditional on that version; `*` or none do not. */
export function parseIfMatch(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const n = Number(ifMatch.trim().replaceAll('"', '').replace(/^W\//, ''));
  if (!Number.isInteger(n) || n < 1)
    throw new BadRequestError('If-Match must be an alert version number, e.g. "3"');
  return n;
}

/**
 * Runs `change` on the current alert (cost or budget alert; its creator or an admin) and writes the
 * result conditionally on the version read (`changeVersioned`): with If-Match a stale version is a
 * 409; without, a lost race is retried on the fresh copy. Answers the record and its version.
 */
export function changeOwnedAlert<S extends { version: number; createdById: string }, N, R>(
  principal: Principal,
  ifMatch: string | undefined,
  load: () => Promise<S>,
  change: (current: S) => N | null | Promise<N | null>,
  write: (next: N, current: S) => Promise<S>,
  record: (alert: S) => R,
): Promise<{ alert: R; version: number }> {
  const answer = (alert: S) => ({ alert: record(alert), version: alert.version });
  return changeVersioned({
    expected: parseIfMatch(ifMatch),
    read: async () => {
      const current = await load();
      assertCanEdit(principal, current);
      return current;
    },
    version: (current) => current.version,
    change,
    replace: async (next, current) => answer(await write(next, current)),
    unchanged: answer,
  });
}

/** Exported for the kinds of alert stored as cost alerts (expiring-commitment alerts): `record` answers their own shape. */
export function changeAlert<R>(
  principal: Principal,
  alertId: string,
  ifMatch: string | undefined,
  change: (current: StoredAlert) => Promise<{ next: StoredAlert; thresholds?: AlertThreshold[] } | null>,
  record: (alert: StoredAlert) => R,
) {
  const write = async (
    result: { next: StoredAlert; thresholds?: AlertThreshold[] },
    current: StoredAlert,
  ) => {
    const next = { ...result.next, version: current.version + 1 };
    if (result.thresholds) {
      const old = await getThresholds(principal.orgId, alertId);
      await replaceAlert(next, current.version, { remove: old, add: result.thresholds });
    } else {
      await replaceAlert(next, current.version);
    }
    return next;
  };
  return changeOwnedAlert(principal, ifMatch, () => load(principal.orgId, alertId), change, write, record);
}

/** Replaces an alert's definition with the body (identity, archive and snooze state are kept). */
export async function updateAlert(
  principal: Principal,
  alertId: string,
  input: CreateAlertInput,
  ifMatch: string | undefined,
  now = new Date(),
) {
  const fields = alertFields(input, webhookPolicy());
  await assertAlertReferences(principal, fields);
  return changeAlert(
    principal,
    alertId,
    ifMatch,
    async (current) => {
      // An expiring-commitment alert is not a cost alert: it has no cost-alert definition to replace.
      if (current.variant === 'COMMITMENT_EXPIRY') throw new NotFoundError(ALERT_NOT_FOUND);
      if (current.archivedAt) throw new ConflictError('ALERT_ARCHIVED');
      const next: StoredAlert = { ...current, ...stored(fields), updatedAt: now.toISOString() };
      return { next, thresholds: thresholdsOf(alertId, fields) };
    },
    toRecord,
  );
}

/** Archive, snooze and unsnooze of alerts stored as cost alerts, answering `record` of the result. */
export function storedAlertLifecycle<R>(record: (alert: StoredAlert) => R) {
  return alertLifecycle<StoredAlert, { alert: R; version: number }>((principal, alertId, ifMatch, change) =>
    changeAlert(
      principal,
      alertId,
      ifMatch,
      async (current) => {
        const next = change(current);
        return next && { next };
      },
      record,
    ),
  );
}

export const {
  archive: archiveAlert,
  snooze: snoozeAlert,
  unsnooze: unsnoozeAlert,
} = storedAlertLifecycle(toRecord);

/** The alert's evaluations, newest first (404 for an alert the caller's organisation does not have). */
export async function alertHistory(
  principal: Principal,
  alertId: string,
  opts: { limit: number; cursor?: string },
): Promise<Page<AlertEvaluation>> {
  await load(principal.orgId, alertId);
  return listEvaluations(principal.orgId, alertId, opts.limit, opts.cursor);
}
