import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NextEvalMove } from '../model/alerts';
import type { BudgetAlertEvaluation, StoredBudgetAlert } from '../model/budget-alerts';
import { db, isConditionalCheckFailed, tableName } from './client';
import { advanceDue, type DuePage, duePages } from './due';
import { getItem } from './items';
import { keys, stripKeys } from './keys';
import { type Page, queryNewest } from './page';
import { insertNew, replaceVersioned } from './writes';

/**
 * Budget alerts in the single table (docs/budgets.md): the alert `META` item (GSI1 for the
 * organisation's list by creation time; GSI2, the sharded due index, only while it is not archived
 * and has a `nextEvalAt`), its evaluations `EVAL#<ts>` (TTL) and the thresholds that fired
 * `FIRED#<month>#<line>#<threshold>` (one conditional put each: a threshold fires once per month
 * and line) in the alert's partition. Thresholds are part of the record.
 */
const ENTITY = 'budgetAlert';
const SCHEMA_VERSION = 1;

function alertItem(a: StoredBudgetAlert): Record<string, unknown> {
  const due = !a.archivedAt && a.nextEvalAt ? keys.budgetAlertDue(a.id, a.nextEvalAt) : {};
  return {
    ...keys.budgetAlert(a.organizationId, a.id),
    ...keys.budgetAlertsIndex(a.organizationId, `${a.createdAt}#${a.id}`),
    ...due,
    entity: ENTITY,
    schemaVersion: SCHEMA_VERSION,
    ...a,
  };
}

const fromItem = (item: Record<string, unknown>) => stripKeys(item) as unknown as StoredBudgetAlert;

export async function insertBudgetAlert(a: StoredBudgetAlert): Promise<void> {
  await insertNew(alertItem(a));
}

/** Replaces the alert while its stored version is still `expectedVersion` (409 otherwise). */
export async function replaceBudgetAlert(a: StoredBudgetAlert, expectedVersion: number): Promise<void> {
  await replaceVersioned(alertItem(a), expectedVersion);
}

export async function getBudgetAlert(orgId: string, alertId: string): Promise<StoredBudgetAlert | undefined> {
  return getItem(keys.budgetAlert(orgId, alertId), fromItem, { consistent: true });
}

/** Budget alerts of an organisation, newest first. */
export async function listBudgetAlerts(
  orgId: string,
  limit: number,
  cursor?: string,
): Promise<Page<StoredBudgetAlert>> {
  return queryNewest(keys.budgetAlertsIndex(orgId, ''), { limit, cursor }, fromItem);
}

/** How long an evaluation stays in the history (days, by TTL). */
export const BUDGET_EVALUATION_RETENTION_DAYS = 90;

export async function putBudgetAlertEvaluation(orgId: string, e: BudgetAlertEvaluation): Promise<void> {
  const ttl = Math.floor(Date.parse(e.evaluatedAt) / 1000) + BUDGET_EVALUATION_RETENTION_DAYS * 86_400;
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.budgetAlertEvaluation(orgId, e.alertId, e.evaluatedAt),
        entity: 'budgetAlertEvaluation',
        schemaVersion: SCHEMA_VERSION,
        ttl,
        ...e,
      },
    }),
  );
}

/** Evaluations of a budget alert, newest first. */
export async function listBudgetAlertEvaluations(
  orgId: string,
  alertId: string,
  limit: number,
  cursor?: string,
): Promise<Page<BudgetAlertEvaluation>> {
  const listing = {
    pk: keys.budgetAlertPartition(orgId, alertId),
    skPrefix: keys.budgetAlertEvaluationPrefix,
  };
  return queryNewest(
    listing,
    { limit, cursor },
    (item) => stripKeys(item) as unknown as BudgetAlertEvaluation,
  );
}

/** Due budget alerts of one shard at or before `at` (the index projects the whole records). */
export const dueBudgetAlerts: DuePage<StoredBudgetAlert> = duePages(
  keys.budgetAlertDueShard,
  ENTITY,
  fromItem,
);

/**
 * Moves up to 100 due budget alerts' `nextEvalAt` in one transaction, each conditional on `from`
 * and on the alert not being archived: of two sweeps exactly one takes it. Per move, whether this
 * call moved it (`advanceDue`, ./due.ts).
 */
export function advanceBudgetAlerts(moves: readonly NextEvalMove[]): Promise<boolean[]> {
  return advanceDue(moves, (m) => ({
    key: keys.budgetAlert(m.orgId, m.alertId),
    due: keys.budgetAlertDue(m.alertId, m.to),
  }));
}

/** The claim of a threshold that fired for a month and line. */
export interface FiredClaim {
  month: string;
  line: string | null;
  /** The threshold as it compares (basis, mode, value and amount): see `keys.budgetAlertFired`. */
  threshold: string;
  notificationId: string;
}

/**
 * Claims a threshold's firing for its month and line with one conditional put: `claimed` when this
 * call wrote it; otherwise `pending` says the earlier claim's notification was never confirmed on
 * the queue (the claimer failed after claiming), so the caller enqueues it again under the same
 * notification id (the notify worker delivers an id once).
 */
export async function claimFired(
  orgId: string,
  alertId: string,
  c: FiredClaim,
  now: Date,
): Promise<{ claimed: boolean; pending: boolean }> {
  const key = keys.budgetAlertFired(orgId, alertId, c.month, c.line, c.threshold);
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          entity: 'budgetAlertFired',
          schemaVersion: SCHEMA_VERSION,
          alertId,
          ...c,
          enqueued: false,
          firedAt: now.toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { claimed: true, pending: false };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const existing = await getItem(key, (item) => item, { consistent: true });
    return { claimed: false, pending: existing?.enqueued === false };
  }
}

/** Marks a claim's notification as on the queue. */
export async function markFiredEnqueued(orgId: string, alertId: string, c: FiredClaim): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.budgetAlertFired(orgId, alertId, c.month, c.line, c.threshold),
      UpdateExpression: 'SET enqueued = :t',
      ExpressionAttributeValues: { ':t': true },
    }),
  );
}
