import {
  BatchWriteCommand,
  PutCommand,
  QueryCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { AlertEvaluation, AlertThreshold, DedupRule, NextEvalMove, StoredAlert } from '../model/alerts';
import { mapLimit } from '../pool';
import { db, tableName } from './client';
import { advanceDue, type DuePage, duePages } from './due';
import { defineEntity, firstConditionFailed, type TransactItem, transact } from './entity';
import { batchGetItems } from './items';
import { keys, stripKeys } from './keys';
import { type Page, queryNewest } from './page';
import { replaceVersioned, versionConflict } from './writes';

/**
 * Cost alerts in the single table (docs/data-model.md): the alert `META` item (GSI1 for
 * the organisation's list by creation time; GSI2, the sharded due index, only while the alert is not
 * archived and has a `nextEvalAt`), its thresholds `THRESHOLD#h`, its dedup state `DEDUP` and its
 * evaluations `EVAL#<ts>` (TTL) in the alert's partition.
 */
const alerts = defineEntity<StoredAlert>({
  name: 'costAlert',
  schemaVersion: 1,
  key: (alert) => keys.alert(alert.organizationId, alert.id),
  indexes: (alert) => ({
    ...keys.alertsIndex(alert.organizationId, `${alert.createdAt}#${alert.id}`),
    ...(!alert.archivedAt && alert.nextEvalAt ? keys.alertDue(alert.id, alert.nextEvalAt) : {}),
  }),
});

const thresholdsOf = defineEntity<AlertThreshold & { orgId: string }>({
  name: 'alertThreshold',
  schemaVersion: 1,
  key: (t) => keys.alertThreshold(t.orgId, t.costAlertId, t.id),
  attributes: ({ orgId: _org, ...t }) => t,
});

const evaluations = defineEntity<AlertEvaluation & { orgId: string }>({
  name: 'alertEvaluation',
  schemaVersion: 1,
  key: (e) => keys.alertEvaluation(e.orgId, e.alertId, e.evaluatedAt),
  attributes: ({ orgId: _org, ...evaluation }) => ({
    ttl: Math.floor(Date.parse(evaluation.evaluatedAt) / 1000) + EVALUATION_RETENTION_DAYS * 86_400,
    ...evaluation,
  }),
});

interface DedupState {
  orgId: string;
  alertId: string;
  windowKey?: string;
  lastNotifiedDay: string;
  notificationId: string;
  updatedAt: string;
}

const dedupStates = defineEntity<DedupState>({
  name: 'alertDedup',
  schemaVersion: 1,
  key: (d) => keys.alertDedup(d.orgId, d.alertId),
  attributes: ({ orgId: _org, alertId: _alert, ...state }) => state,
});

/** The alert item; with `thresholds` (written in the same transaction), its `evalThresholds` copy of them. */
function alertItem(alert: StoredAlert, thresholds?: readonly AlertThreshold[]): Record<string, unknown> {
  return alerts.item(thresholds ? ({ ...alert, evalThresholds: thresholds } as StoredAlert) : alert);
}

const thresholdPut = (orgId: string, t: AlertThreshold): TransactItem =>
  thresholdsOf.transactPut({ ...t, orgId }, null);

const fromItem = alerts.read;

/** Writes a new alert and its thresholds in one transaction. */
export async function insertAlert(alert: StoredAlert, thresholds: readonly AlertThreshold[]): Promise<void> {
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    {
      Put: {
        TableName: tableName(),
        Item: alertItem(alert, thresholds),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...thresholds.map((t) => thresholdPut(alert.organizationId, t)),
  ];
  await transact(items);
}

export async function getAlert(orgId: string, alertId: string): Promise<StoredAlert | undefined> {
  return alerts.get(keys.alert(orgId, alertId));
}

/** Several alerts of one organisation (BatchGet, strongly consistent): the ones found, by id. */
export async function getAlerts(
  orgId: string,
  alertIds: readonly string[],
): Promise<Map<string, StoredAlert>> {
  const items = await batchGetItems(alertIds.map((id) => keys.alert(orgId, id)));
  const out = new Map<string, StoredAlert>();
  for (const item of items) {
    const alert = fromItem(item);
    if (alert.organizationId === orgId) out.set(alert.id, alert);
  }
  return out;
}

export async function getThresholds(orgId: string, alertId: string): Promise<AlertThreshold[]> {
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':p': keys.alertPartition(orgId, alertId),
        ':prefix': keys.alertThresholdPrefix,
      },
      ConsistentRead: true,
    }),
  );
  return (res.Items ?? []).map((item) => stripKeys(item) as unknown as AlertThreshold);
}

/** Thresholds of several alerts of one organisation (one query each, `concurrency` at once), by alert id. */
export async function getThresholdsOf(
  orgId: string,
  alertIds: readonly string[],
  concurrency = 16,
): Promise<Map<string, AlertThreshold[]>> {
  const lists = await mapLimit(alertIds, concurrency, (id) => getThresholds(orgId, id));
  return new Map(alertIds.map((id, i) => [id, lists[i]!]));
}

/**
 * Replaces an alert while its stored version is still `expectedVersion` (409 VERSION_CONFLICT
 * otherwise) and, when `thresholds` is given, its thresholds with that list, in one transaction.
 */
export async function replaceAlert(
  alert: StoredAlert,
  expectedVersion: number,
  thresholds?: { remove: readonly AlertThreshold[]; add: readonly AlertThreshold[] },
): Promise<void> {
  if (!thresholds) {
    await replaceVersioned(alertItem(alert), expectedVersion);
    return;
  }
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    {
      Put: {
        TableName: tableName(),
        Item: alertItem(alert, thresholds.add),
        ConditionExpression: 'attribute_exists(pk) AND #v = :expected',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':expected': expectedVersion },
      },
    },
    ...thresholds.remove.map((t) => ({
      Delete: { TableName: tableName(), Key: keys.alertThreshold(alert.organizationId, alert.id, t.id) },
    })),
    ...thresholds.add.map((t) => thresholdPut(alert.organizationId, t)),
  ];
  await transact(items, firstConditionFailed(versionConflict));
}

/** Alerts of an organisation, newest first. */
export async function listAlerts(orgId: string, limit: number, cursor?: string): Promise<Page<StoredAlert>> {
  return queryNewest(keys.alertsIndex(orgId, ''), { limit, cursor }, fromItem);
}

/** Evaluations of an alert, newest first. */
export async function listEvaluations(
  orgId: string,
  alertId: string,
  limit: number,
  cursor?: string,
): Promise<Page<AlertEvaluation>> {
  const listing = { pk: keys.alertPartition(orgId, alertId), skPrefix: keys.alertEvaluationPrefix };
  return queryNewest(listing, { limit, cursor }, (item) => {
    const evaluation = stripKeys(item) as unknown as AlertEvaluation;
    return { ...evaluation, rootCauses: evaluation.rootCauses ?? null };
  });
}

/** How long an evaluation stays in the history (days, by TTL). */
export const EVALUATION_RETENTION_DAYS = 90;

const evaluationItem = (orgId: string, evaluation: AlertEvaluation) =>
  evaluations.item({ ...evaluation, orgId });

/** Records an evaluation (kept EVALUATION_RETENTION_DAYS by TTL). A replay of the same one overwrites it. */
export async function putEvaluation(orgId: string, evaluation: AlertEvaluation): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: evaluationItem(orgId, evaluation) }));
}

/**
 * Records several evaluations: BatchWrite, 25 a call, 4 calls at once; unprocessed items retried
 * with backoff. Evaluations must have distinct keys (alert + `evaluatedAt`).
 */
export async function putEvaluations(orgId: string, evaluations: readonly AlertEvaluation[]): Promise<void> {
  const chunks: AlertEvaluation[][] = [];
  for (let i = 0; i < evaluations.length; i += 25) chunks.push(evaluations.slice(i, i + 25));
  await mapLimit(chunks, 4, async (chunk) => {
    let pending = chunk.map((e) => ({ PutRequest: { Item: evaluationItem(orgId, e) } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('BatchWrite kept returning unprocessed evaluations');
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      const res = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (res.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  });
}

/**
 * One page of the due index: alerts of one shard due at or before `at` (archived ones are not in
 * it). The index projects every attribute, so the page carries the whole alert records and the
 * sweep needs no further read; being eventually consistent, a record may be a moment old, which the
 * sweep's conditional `advanceNextEvals` guards against.
 */
export const dueAlerts: DuePage<StoredAlert> = duePages(keys.alertDueShard, alerts.name, fromItem);

/**
 * Moves up to 100 alerts' `nextEvalAt` (and their due-index keys) in one transaction: per move,
 * whether this call moved it (`advanceDue`, ./due.ts).
 */
export function advanceNextEvals(moves: readonly NextEvalMove[]): Promise<boolean[]> {
  return advanceDue(moves, (m) => ({
    key: keys.alert(m.orgId, m.alertId),
    due: keys.alertDue(m.alertId, m.to),
  }));
}

/**
 * Applies an alert's dedup rule with one conditional write on its `DEDUP` item: true when this
 * evaluation may notify (and the state now records it), false when the rule suppresses it. A replay
 * of the same notification id is allowed again (the notify worker makes its delivery idempotent).
 */
export async function claimDedup(
  orgId: string,
  alertId: string,
  rule: DedupRule,
  evaluatedDay: string,
  notificationId: string,
  now: Date,
): Promise<boolean> {
  const condition =
    rule.kind === 'WINDOW'
      ? 'attribute_not_exists(pk) OR windowKey <> :key OR notificationId = :nid'
      : 'attribute_not_exists(pk) OR lastNotifiedDay <= :notAfter OR notificationId = :nid';
  const state: DedupState = {
    orgId,
    alertId,
    ...(rule.kind === 'WINDOW' ? { windowKey: rule.windowKey } : {}),
    lastNotifiedDay: evaluatedDay,
    notificationId,
    updatedAt: now.toISOString(),
  };
  return dedupStates.putIf(state, {
    expression: condition,
    values: {
      ':nid': notificationId,
      ...(rule.kind === 'WINDOW' ? { ':key': rule.windowKey } : { ':notAfter': rule.notAfter }),
    },
  });
}
