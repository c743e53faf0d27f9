import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { QueueName } from '../queues';
import { db, tableName } from './client';
import { defineEntity, type TransactItem } from './entity';
import { queryDue } from './items';
import { DUE_SHARDS, keys, stripKeys } from './keys';

/**
 * The transactional outbox: a message written in the same DynamoDB transaction as the change
 * that causes it, sent to SQS after the commit, and deleted once sent. Entries left behind (SQS
 * down, process killed between commit and send) are found by the `outbox-sweep` schedule through
 * the sharded GSI2 due index and sent again. Consumers are idempotent, so a resend is harmless.
 */
export interface OutboxEntry {
  id: string;
  orgId: string;
  queue: QueueName;
  /** The SQS message body (JSON text). */
  body: string;
  createdAt: string;
  attempts: number;
}

/** An entry sits in the sharded due index (GSI2) from the start, so the sweep finds it if the send fails. */
const entries = defineEntity<OutboxEntry>({
  name: 'outbox',
  schemaVersion: 1,
  key: (entry) => keys.outboxEntry(entry.orgId, entry.createdAt, entry.id),
  indexes: (entry) => keys.outboxDue(entry.id, entry.createdAt),
});

/** The Put of a TransactWriteCommand that records `entry` beside the caller's own writes. */
export function outboxPut(entry: OutboxEntry): TransactItem {
  return entries.transactPut(entry, null);
}

/** Records an entry on its own (when there is no other write to pair it with). */
export async function putOutboxEntry(entry: OutboxEntry): Promise<void> {
  await entries.put(entry);
}

/** Removes a sent entry. Deleting one already gone is fine (the sweep and the writer may race). */
export async function deleteOutboxEntry(
  entry: Pick<OutboxEntry, 'orgId' | 'createdAt' | 'id'>,
): Promise<void> {
  await db().send(
    new DeleteCommand({
      TableName: tableName(),
      Key: keys.outboxEntry(entry.orgId, entry.createdAt, entry.id),
    }),
  );
}

/** Counts a failed send, so a poisoned entry is visible (it is retried on every sweep regardless). */
export async function recordOutboxAttempt(
  entry: Pick<OutboxEntry, 'orgId' | 'createdAt' | 'id'>,
): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.outboxEntry(entry.orgId, entry.createdAt, entry.id),
        UpdateExpression: 'ADD attempts :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    )
    .catch(() => undefined);
}

/** Entries of every organisation created at or before `cutoff`, oldest first, across all shards. */
export async function dueOutboxEntries(cutoff: string, limitPerShard = 100): Promise<OutboxEntry[]> {
  const out: OutboxEntry[] = [];
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    const res = await queryDue({ shard: keys.outboxDueShard(shard), at: cutoff, limit: limitPerShard });
    for (const item of res.items) out.push(stripKeys(item) as unknown as OutboxEntry);
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
