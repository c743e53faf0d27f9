import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { keys, stripKeys } from './keys';
import { type OutboxEntry, outboxPut } from './outbox-repo';

/**
 * Records of the billing warehouse and dimensions area: ingestion records (one per uploaded
 * object version: idempotency and status), published label configurations, virtual-dimension
 * drafts, the refresh status and the caches the refresh writes. Billing rows themselves never
 * come here: they live in the warehouse.
 */
const SCHEMA_VERSION = 1;

/** Whether the organisation exists (the identity seed or sign-up wrote its META item). */
export async function organizationExists(orgId: string): Promise<boolean> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.organization(orgId), ProjectionExpression: 'pk' }),
  );
  return Boolean(res.Item);
}

export type IngestionStatus = 'processing' | 'succeeded' | 'rejected';

export interface IngestionRecord {
  orgId: string;
  objectKey: string;
  version: string;
  status: IngestionStatus;
  startedAt: string;
  finishedAt?: string;
  rows?: number;
  months?: string[];
  /** Why a malformed file was rejected (names the row and column). */
  error?: string;
  row?: number;
  column?: string;
}

export async function getIngestion(
  orgId: string,
  objectKey: string,
  version: string,
): Promise<IngestionRecord | undefined> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.ingestion(orgId, objectKey, version) }),
  );
  return res.Item ? (stripKeys(res.Item) as unknown as IngestionRecord) : undefined;
}

/** Marks an ingestion as started unless it already finished (a redelivered event). Returns false then. */
export async function startIngestion(record: IngestionRecord): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.ingestion(record.orgId, record.objectKey, record.version),
          entity: 'ingestion',
          schemaVersion: SCHEMA_VERSION,
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #s = :processing',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':processing': 'processing' },
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Records the rejection of a malformed file (terminal: the same object is never retried). */
export async function rejectIngestion(
  record: Pick<IngestionRecord, 'orgId' | 'objectKey' | 'version'>,
  detail: { error: string; row?: number; column?: string; finishedAt: string },
): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.ingestion(record.orgId, record.objectKey, record.version),
      UpdateExpression: `SET #s = :s, #e = :e, finishedAt = :f${detail.row !== undefined ? ', #r = :r' : ''}${
        detail.column !== undefined ? ', #c = :c' : ''
      }`,
      ExpressionAttributeNames: {
        '#s': 'status',
        '#e': 'error',
        ...(detail.row !== undefined ? { '#r': 'row' } : {}),
        ...(detail.column !== undefined ? { '#c': 'column' } : {}),
      },
      ExpressionAttributeValues: {
        ':s': 'rejected',
        ':e': detail.error,
        ':f': detail.finishedAt,
        ...(detail.row !== undefined ? { ':r': detail.row } : {}),
        ...(detail.column !== undefined ? { ':c': detail.column } : {}),
      },
    }),
  );
}

/** Records a successful ingestion and the refresh it asks for, in one transaction. */
export async function completeIngestion(
  record: Pick<IngestionRecord, 'orgId' | 'objectKey' | 'version'>,
  result: { rows: number; months: string[]; finishedAt: string },
  refresh: OutboxEntry,
): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.ingestion(record.orgId, record.objectKey, record.version),
            UpdateExpression: 'SET #s = :s, #rows = :rows, months = :months, finishedAt = :f',
            ExpressionAttributeNames: { '#s': 'status', '#rows': 'rows' },
            ExpressionAttributeValues: {
              ':s': 'succeeded',
              ':rows': result.rows,
              ':months': result.months,
              ':f': result.finishedAt,
            },
          },
        },
        outboxPut(refresh),
      ],
    }),
  );
}
