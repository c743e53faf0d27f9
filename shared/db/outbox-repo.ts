import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { QueueName } from '../queues';
import { db, tableName } from './client';
import { DUE_SHARDS, INDEX_ON, keys, stripKeys } from './keys';

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

const ENTITY = 'outbox';
const SCHEMA_VERSION = 1;

/** The Put of a TransactWriteCommand that records `entry` beside the caller's own writes. */
export function outboxPut(entry: OutboxEntry): { Put: { TableName: string; Item: Record<string, unknown> } } {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.outboxEntry(entry.orgId, entry.createdAt, entry.id),
        ...keys.outboxDue(entry.id, entry.createdAt),
        entity: ENTITY,
        schemaVersion: SCHEMA_VERSION,
        ...entry,
      },
    },
  };
}

/** Records an entry on its own (when there is no other write to pair it with). */
export async function putOutboxEntry(entry: OutboxEntry): Promise<void> {
  await db().send(new PutCommand(outboxPut(entry).Put));
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
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEX_ON.gsi2pk,
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :cutoff',
        ExpressionAttributeValues: { ':pk': keys.outboxDueShard(shard), ':cutoff': cutoff },
        Limit: limitPerShard,
      }),
    );
    for (const item of res.Items ?? []) out.push(stripKeys(item) as unknown as OutboxEntry);
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
