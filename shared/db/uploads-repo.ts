import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SourceChange } from '../model/uploads';
import { db, tableName } from './client';
import { getIngestion, type IngestionRecord } from './dimensions-repo';
import { transact } from './entity';
import { getItem } from './items';
import { keys } from './keys';
import { type OutboxEntry, outboxPut } from './outbox-repo';
import { type Page, queryNewest, scanPage } from './page';
import { conditionHeld } from './writes';

/**
 * Billing uploads by id. The ingestion record (one per object key and version, dimensions-repo.ts)
 * is the upload record; an upload's id (`upl_…`) points at it, so `/billing/uploads/{id}` reads
 * it with two GetItems. The restore of what an upload replaced is asked and finished here.
 */
type Ref = Pick<IngestionRecord, 'orgId' | 'objectKey' | 'version'>;

/**
 * Writes the pointer of an upload id to its record, and its place in the organisation's uploads by
 * time (GSI1: the time of its first delivery `at`, then its id). Idempotent: a redelivered event
 * keeps the first time, so an upload does not move up the list.
 */
export async function putUploadPointer(ref: Ref, uploadId: string, at: string): Promise<void> {
  const index = keys.uploadsIndex(ref.orgId, `${at}#${uploadId}`);
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.uploadPointer(ref.orgId, uploadId),
      UpdateExpression:
        'SET entity = :e, objectKey = :k, version = :v, gsi1pk = :p, gsi1sk = if_not_exists(gsi1sk, :s)',
      ExpressionAttributeValues: {
        ':e': 'upload-pointer',
        ':k': ref.objectKey,
        ':v': ref.version,
        ':p': index.gsi1pk,
        ':s': index.gsi1sk,
      },
    }),
  );
}

/** An upload pointer written before the uploads index (no GSI1 attributes): what the backfill needs. */
export interface UnindexedPointer {
  orgId: string;
  uploadId: string;
  objectKey: string;
  version: string;
}

/**
 * A page of the upload pointers that have no place in the uploads index (written before it,
 * scripts/migrate-upload-index.ts), from a scan of the whole table; `next` continues it.
 */
export async function scanUnindexedUploadPointers(
  start?: Record<string, unknown>,
): Promise<{ items: UnindexedPointer[]; next: Record<string, unknown> | undefined }> {
  const filter = {
    expression: 'entity = :e AND attribute_not_exists(gsi1pk)',
    values: { ':e': 'upload-pointer' },
  };
  return scanPage(filter, start, (item) => ({
    orgId: String(item.pk)
      .replace(/^ORG#/, '')
      .replace(/#INGEST$/, ''),
    uploadId: String(item.sk).replace(/^UPLOAD#/, ''),
    objectKey: String(item.objectKey),
    version: String(item.version),
  }));
}

/**
 * Gives an existing pointer without one its place in the uploads index (the time `at`). Answers
 * false when the pointer is gone or was indexed meanwhile (conditional: never creates a pointer).
 */
export async function indexUploadPointer(orgId: string, uploadId: string, at: string): Promise<boolean> {
  const index = keys.uploadsIndex(orgId, `${at}#${uploadId}`);
  return conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.uploadPointer(orgId, uploadId),
        UpdateExpression: 'SET gsi1pk = :p, gsi1sk = :s',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi1pk)',
        ExpressionAttributeValues: { ':p': index.gsi1pk, ':s': index.gsi1sk },
      }),
    ),
  );
}

/** The upload record of an id within an organisation; undefined when there is none. */
export async function getUpload(orgId: string, uploadId: string): Promise<IngestionRecord | undefined> {
  const pointer = await getItem(keys.uploadPointer(orgId, uploadId), (item) => ({
    objectKey: String(item.objectKey),
    version: String(item.version),
  }));
  return pointer ? getIngestion(orgId, pointer.objectKey, pointer.version) : undefined;
}

/**
 * A page of an organisation's upload records, newest first (by the time each was first delivered;
 * GSI1 of the upload pointers, one index partition per organisation). Every record is read whole
 * (with its conformance report); the caller keeps what a list shows. A pointer whose record is not
 * written yet (the worker between the two writes) is left out of its page.
 */
export async function listUploads(
  orgId: string,
  limit: number,
  cursor?: string,
): Promise<Page<IngestionRecord>> {
  const pointers = await queryNewest(keys.uploadsIndex(orgId, ''), { limit, cursor }, (item) => ({
    objectKey: String(item.objectKey),
    version: String(item.version),
  }));
  const records = await Promise.all(pointers.items.map((p) => getIngestion(orgId, p.objectKey, p.version)));
  return {
    items: records.filter((r): r is IngestionRecord => r !== undefined),
    nextCursor: pointers.nextCursor,
  };
}

/**
 * One conditional update of an upload record and one outbox entry, in one transaction. Answers
 * false when the condition fails.
 */
async function updateWithOutbox(
  ref: Ref,
  update: {
    expression: string;
    condition: string;
    names?: Record<string, string>;
    values: Record<string, unknown>;
  },
  entry: OutboxEntry,
): Promise<boolean> {
  return transact(
    [
      {
        Update: {
          TableName: tableName(),
          Key: keys.ingestion(ref.orgId, ref.objectKey, ref.version),
          UpdateExpression: update.expression,
          ConditionExpression: update.condition,
          ...(update.names ? { ExpressionAttributeNames: update.names } : {}),
          ExpressionAttributeValues: update.values,
        },
      },
      outboxPut(entry),
    ],
    () => false,
  );
}

/**
 * Claims the restore of an upload's replaced versions and queues it (the outbox entry), in one
 * transaction: only a succeeded upload not restored or being restored yet. Answers false when
 * the claim fails (a concurrent or earlier restore).
 */
export function claimRestore(
  ref: Ref,
  restoreId: string,
  requestedAt: string,
  message: OutboxEntry,
): Promise<boolean> {
  return updateWithOutbox(
    ref,
    {
      expression: 'SET restoreId = :r, restoreRequestedAt = :t',
      condition: '#s = :succeeded AND attribute_not_exists(restoreId)',
      names: { '#s': 'status' },
      values: { ':r': restoreId, ':t': requestedAt, ':succeeded': 'succeeded' },
    },
    message,
  );
}

/**
 * Records a restore as done, with what it put back, and the refresh it asks for, in one
 * transaction; only for the restore claimed (`restoreId`) and only once. Answers false when it was
 * already recorded (a redelivered message).
 */
export function completeRestore(
  ref: Ref,
  restoreId: string,
  done: { restoredAt: string; restored: SourceChange[] },
  refresh: OutboxEntry,
): Promise<boolean> {
  return updateWithOutbox(
    ref,
    {
      expression: 'SET restoredAt = :at, restored = :restored',
      condition: 'restoreId = :r AND attribute_not_exists(restoredAt)',
      values: { ':r': restoreId, ':at': done.restoredAt, ':restored': done.restored },
    },
    refresh,
  );
}
