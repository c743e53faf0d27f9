import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from './client';
import { defineEntity } from './entity';
import { keys } from './keys';
import { conditionHeld } from './writes';

/**
 * Delivery records of notifications (`ORG#o#NOTIFS` / `NOTIF#id`, kept 30 days by TTL): the notify
 * worker claims one before sending, so a redelivered message never sends twice.
 */
export type DeliveryStatus = 'sending' | 'sent' | 'failed' | 'unknown';

export interface DeliveryRecord {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  leaseUntil: string;
  updatedAt: string;
  error?: string;
}

const RETENTION_SECONDS = 30 * 86_400;

/**
 * Claims a notification for sending: a conditional put that succeeds only when no record exists or
 * the last attempt failed (the provider refused it, so nothing was sent). Answers the record that
 * stopped the claim otherwise. Each claim writes its own token: when the SDK retries a claim whose
 * answer was lost although it landed, the retry fails its condition on this very claim, which the
 * token recognises as ours (otherwise the notification would wait out the lease and be abandoned).
 */
export async function claimDelivery(
  orgId: string,
  id: string,
  now: Date,
  leaseSeconds: number,
): Promise<{ claimed: true } | { claimed: false; existing: DeliveryRecord | undefined }> {
  const at = now.toISOString();
  const token = randomUUID();
  const claimed = await conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.notification(orgId, id),
        UpdateExpression: `SET #s = :sending, leaseUntil = :lease, updatedAt = :at, id = :id, ${deliveries.envelopeSet.expression}, #ttl = :ttl, claimToken = :token ADD attempts :one`,
        ConditionExpression: 'attribute_not_exists(pk) OR #s = :failed',
        ExpressionAttributeNames: { '#s': 'status', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':failed': 'failed',
          ':lease': new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
          ':at': at,
          ':id': id,
          ...deliveries.envelopeSet.values,
          ':ttl': Math.floor(now.getTime() / 1000) + RETENTION_SECONDS,
          ':one': 1,
          ':token': token,
        },
      }),
    ),
  );
  if (claimed) return { claimed: true };
  const item = await readItem(orgId, id);
  if (item?.status === 'sending' && item.claimToken === token) return { claimed: true };
  return { claimed: false, existing: item && toRecord(id, item) };
}

type DeliveryItem = DeliveryRecord & { claimToken?: string };

/** A delivery record (no `schemaVersion`: these items live a while by TTL and never carried one). */
const deliveries = defineEntity<DeliveryRecord & { orgId: string }>({
  name: 'notification',
  key: (d) => keys.notification(d.orgId, d.id),
  attributes: ({ orgId: _org, ...record }) => record,
});

async function readItem(orgId: string, id: string): Promise<DeliveryItem | undefined> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.notification(orgId, id), ConsistentRead: true }),
  );
  return res.Item as DeliveryItem | undefined;
}

function toRecord(id: string, item: DeliveryItem): DeliveryRecord {
  const { status, attempts, leaseUntil, updatedAt, error } = item;
  return { id, status, attempts, leaseUntil, updatedAt, ...(error ? { error } : {}) };
}

export async function getDelivery(orgId: string, id: string): Promise<DeliveryRecord | undefined> {
  const item = await readItem(orgId, id);
  return item && toRecord(id, item);
}

/**
 * Moves a claimed record to its outcome (only from `sending`, so a late writer cannot undo `sent`);
 * a record already at that outcome is left as it is.
 */
export async function finishDelivery(
  orgId: string,
  id: string,
  status: Exclude<DeliveryStatus, 'sending'>,
  now: Date,
  error?: string,
): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.notification(orgId, id),
        UpdateExpression: error
          ? 'SET #s = :s, updatedAt = :at, #e = :e'
          : 'SET #s = :s, updatedAt = :at REMOVE #e',
        ConditionExpression: '#s = :sending',
        ExpressionAttributeNames: { '#s': 'status', '#e': 'error' },
        ExpressionAttributeValues: {
          ':s': status,
          ':at': now.toISOString(),
          ':sending': 'sending',
          ...(error ? { ':e': error.slice(0, 500) } : {}),
        },
      }),
    )
    .catch(async (failure: unknown) => {
      // A retry of this very write (its answer lost) finds the outcome already recorded.
      if (isConditionalCheckFailed(failure) && (await readItem(orgId, id))?.status === status) return;
      throw failure;
    });
}

/** Test helper and operator tool: writes a record as is. */
export async function putDelivery(orgId: string, record: DeliveryRecord): Promise<void> {
  await deliveries.put({ ...record, orgId });
}
