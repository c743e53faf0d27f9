import type { SourceChange } from '../domain/uploads/model';
import { tableName } from './client';
import { getIngestion, type IngestionRecord } from './dimensions-repo';
import { defineEntity, transact } from './entity';
import { getItem } from './items';
import { keys, stripKeys } from './keys';
import { type OutboxEntry, outboxPut } from './outbox-repo';
import { type Page, queryPage } from './page';

/**
 * Billing uploads by id. The ingestion record (one per object key and version, dimensions-repo.ts)
 * is the upload record; an upload's id (`upl_…`) points at it, so `/billing/uploads/{id}` reads
 * it with two GetItems. The restore of what an upload replaced is asked and finished here.
 */
type Ref = Pick<IngestionRecord, 'orgId' | 'objectKey' | 'version'>;

/** An upload id's pointer at its ingestion record (no `schemaVersion`: it never carried one). */
const pointers = defineEntity<Ref & { uploadId: string }>({
  name: 'upload-pointer',
  key: (p) => keys.uploadPointer(p.orgId, p.uploadId),
  attributes: (p) => ({ objectKey: p.objectKey, version: p.version }),
});

/** Writes the pointer of an upload id to its record (idempotent: the same content each time). */
export async function putUploadPointer(ref: Ref, uploadId: string): Promise<void> {
  await pointers.put({ ...ref, uploadId });
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
 * A page of an organisation's upload records, in object-key order (one partition: never another
 * organisation's). Every record is read whole (with its conformance report); the caller keeps
 * what a list shows.
 */
export function listUploads(orgId: string, limit: number, cursor?: string): Promise<Page<IngestionRecord>> {
  return queryPage({
    partition: { attribute: 'pk', value: keys.ingestionsPartition(orgId) },
    skPrefix: keys.ingestionPrefix,
    consistent: true,
    limit,
    cursor,
    map: (item) => stripKeys(item) as unknown as IngestionRecord,
  });
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
