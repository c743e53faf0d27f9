import type { Principal } from '../../../auth/principal';
import {
  getBudgetAlert,
  insertBudgetAlert,
  listBudgetAlertEvaluations,
  listBudgetAlerts,
  replaceBudgetAlert,
} from '../../../db/budget-alerts-repo';
import { getBudget } from '../../../db/budgets-repo';
import type { Page } from '../../../db/page';
import { BadRequestError, ConflictError, NotFoundError } from '../../../errors';
import { newId } from '../../../ids';
import {
  type BudgetAlert,
  type BudgetAlertEvaluation,
  EACH_LINE,
  type StoredBudgetAlert,
  toBudgetAlertRecord,
} from '../../../model/budget-alerts';
import type { Budget } from '../../../model/budgets';
import { alertLifecycle } from '../../alerts/lifecycle';
import { channelTarget } from '../../alerts/rules';
import { ALERT_NOT_FOUND, changeOwnedAlert, webhookPolicy } from '../../alerts/service';
import type { BudgetAlertInput } from './schemas';

/**
 * Budget alerts' routes (docs/budgets.md "Budget alerts"): any member creates and reads; the
 * creator or an admin changes, archives and snoozes; another organisation's alert is a 404.
 */
type Fields = Pick<
  StoredBudgetAlert,
  'name' | 'budgetId' | 'line' | 'notificationChannel' | 'emails' | 'slackChannelId' | 'teamsChannelId'
> & { thresholds: BudgetAlertInput['thresholds'] };

/** The body's rules over several fields and the budget it names (400 naming the field). */
export function checkLine(budget: Pick<Budget, 'groupBy' | 'lines'>, line: string | null): void {
  if (line === null || line === EACH_LINE) return;
  if (budget.groupBy === null)
    throw new BadRequestError(
      'line: the budget has a single total line (no groupBy); omit line, or give "*"',
    );
  if (!budget.lines.some((l) => l.value === line))
    throw new BadRequestError(`line: '${line}' is not the value of a line of the budget`);
}

async function fieldsOf(principal: Principal, input: BudgetAlertInput): Promise<Fields> {
  const target = channelTarget(input, webhookPolicy());
  const budget = await getBudget(principal.orgId, input.budgetId);
  if (!budget) throw new BadRequestError(`budgetId: no budget ${input.budgetId} in this organisation`);
  if (budget.archivedAt) throw new BadRequestError(`budgetId: budget ${input.budgetId} is archived`);
  checkLine(budget, input.line);
  return {
    name: input.name,
    budgetId: input.budgetId,
    line: input.line,
    thresholds: input.thresholds,
    notificationChannel: input.notificationChannel,
    ...target,
  };
}

function thresholdsOf(alertId: string, fields: Fields): StoredBudgetAlert['thresholds'] {
  return fields.thresholds.map((t) => ({
    id: newId('bthr'),
    budgetAlertId: alertId,
    costAlertId: null,
    value: t.value,
    severityLevel: t.severityLevel,
    metricMode: t.metricMode,
    basis: t.basis,
  }));
}

export async function createBudgetAlert(
  principal: Principal,
  input: BudgetAlertInput,
  now = new Date(),
): Promise<BudgetAlert> {
  const fields = await fieldsOf(principal, input);
  const at = now.toISOString();
  const id = newId('balrt');
  const alert: StoredBudgetAlert = {
    id,
    organizationId: principal.orgId,
    createdById: principal.principalId,
    createdAt: at,
    updatedAt: at,
    archivedAt: null,
    snoozedUntil: null,
    ...fields,
    thresholds: thresholdsOf(id, fields),
    version: 1,
    // Due at once: the next sweep evaluates it.
    nextEvalAt: at,
  };
  await insertBudgetAlert(alert);
  return toBudgetAlertRecord(alert);
}

async function load(orgId: string, alertId: string): Promise<StoredBudgetAlert> {
  const alert = await getBudgetAlert(orgId, alertId);
  if (!alert) throw new NotFoundError(ALERT_NOT_FOUND);
  return alert;
}

export async function readBudgetAlert(principal: Principal, alertId: string) {
  const alert = await load(principal.orgId, alertId);
  return { alert: toBudgetAlertRecord(alert), version: alert.version };
}

const MAX_LIST_READS = 5;

/** A page of the organisation's budget alerts, newest first (archived ones with `includeArchived`). */
export async function listBudgetAlertsPage(
  principal: Principal,
  opts: { limit: number; cursor?: string; includeArchived: boolean; budgetId?: string },
): Promise<Page<BudgetAlert>> {
  const items: BudgetAlert[] = [];
  let cursor = opts.cursor;
  for (let read = 0; read < MAX_LIST_READS; read++) {
    const page = await listBudgetAlerts(principal.orgId, opts.limit - items.length, cursor);
    items.push(
      ...page.items
        .filter(
          (a) => (opts.includeArchived || !a.archivedAt) && (!opts.budgetId || a.budgetId === opts.budgetId),
        )
        .map(toBudgetAlertRecord),
    );
    cursor = page.nextCursor ?? undefined;
    if (!cursor || items.length >= opts.limit) break;
  }
  return { items, nextCursor: cursor ?? null };
}

function changeBudgetAlert(
  principal: Principal,
  alertId: string,
  ifMatch: string | undefined,
  change: (current: StoredBudgetAlert) => StoredBudgetAlert | null,
) {
  const write = async (changed: StoredBudgetAlert, current: StoredBudgetAlert) => {
    const next = { ...changed, version: current.version + 1 };
    await replaceBudgetAlert(next, current.version);
    return next;
  };
  return changeOwnedAlert(
    principal,
    ifMatch,
    () => load(principal.orgId, alertId),
    change,
    write,
    toBudgetAlertRecord,
  );
}

/** Replaces the definition (identity, archive and snooze state kept; thresholds get new ids). */
export async function updateBudgetAlert(
  principal: Principal,
  alertId: string,
  input: BudgetAlertInput,
  ifMatch: string | undefined,
  now = new Date(),
) {
  // Another organisation's alert is a 404 before the body (and the budget it names) is looked at.
  await load(principal.orgId, alertId);
  const fields = await fieldsOf(principal, input);
  return changeBudgetAlert(principal, alertId, ifMatch, (current) => {
    if (current.archivedAt) throw new ConflictError('ALERT_ARCHIVED');
    return {
      ...current,
      ...fields,
      thresholds: thresholdsOf(alertId, fields),
      updatedAt: now.toISOString(),
    };
  });
}

export const {
  archive: archiveBudgetAlert,
  snooze: snoozeBudgetAlert,
  unsnooze: unsnoozeBudgetAlert,
} = alertLifecycle(changeBudgetAlert);

/** The alert's evaluations, newest first (404 for an alert the caller's organisation does not have). */
export async function budgetAlertHistory(
  principal: Principal,
  alertId: string,
  opts: { limit: number; cursor?: string },
): Promise<Page<BudgetAlertEvaluation>> {
  await load(principal.orgId, alertId);
  return listBudgetAlertEvaluations(principal.orgId, alertId, opts.limit, opts.cursor);
}
