import { gunzipSync, gzipSync } from 'node:zlib';
import { BatchWriteCommand, DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../errors';
import type { CacheKind, PublishedLabel, RefreshStatus, VirtualDimension } from '../model/dimensions';
import type { ConformanceReport, SourceChange } from '../model/uploads';
import { db, tableName } from './client';
import { type Condition, conditionInput, defineEntity, setAll, transact } from './entity';
import { getItem, type Item, queryPartition } from './items';
import { keys } from './keys';
import { type OutboxEntry, outboxPut } from './outbox-repo';
import { type Page, queryPage } from './page';
import { conditionHeld, ifConditionFails, versionConflict } from './writes';

/**
 * Records of the billing warehouse and dimensions area: ingestion records (one per uploaded
 * object version: idempotency and status), published label configurations, virtual-dimension
 * drafts, the refresh status and the caches the refresh writes. Billing rows themselves never
 * come here: they live in the warehouse.
 */
const SCHEMA_VERSION = 1;

const ingestions = defineEntity<IngestionRecord>({
  name: 'ingestion',
  schemaVersion: SCHEMA_VERSION,
  key: (r) => keys.ingestion(r.orgId, r.objectKey, r.version),
});

const vdims = defineEntity<VirtualDimension>({
  name: 'virtual-dimension',
  schemaVersion: SCHEMA_VERSION,
  key: (vdim) => keys.virtualDimension(vdim.organizationId, vdim.id),
});

const labelConfigs = defineEntity<PublishedLabel & { orgId: string }, PublishedLabel>({
  name: 'label-config',
  schemaVersion: SCHEMA_VERSION,
  key: (label) => keys.labelConfig(label.orgId, label.name),
  attributes: ({ orgId: _org, ...label }) => label,
});

const refreshStatuses = defineEntity<RefreshStatus & { orgId: string }>({
  name: 'refresh-status',
  schemaVersion: SCHEMA_VERSION,
  key: (status) => keys.refreshStatus(status.orgId),
});

/** A refresh request marked done, so a redelivered message is recognised (kept a week by TTL). */
const refreshesDone = defineEntity<{ orgId: string; requestId: string; outcome: string; at: Date }>({
  name: 'refresh-done',
  schemaVersion: SCHEMA_VERSION,
  key: (done) => keys.refreshDone(done.orgId, done.requestId),
  attributes: (done) => ({
    requestId: done.requestId,
    outcome: done.outcome,
    at: done.at.toISOString(),
    ttl: Math.floor(done.at.getTime() / 1000) + DONE_TTL_SECONDS,
  }),
});

interface CachePart {
  orgId: string;
  kind: CacheKind;
  refreshId: string;
  part: number;
  data: Buffer;
}

const cacheParts = defineEntity<CachePart>({
  name: 'dimension-cache-part',
  schemaVersion: SCHEMA_VERSION,
  key: (p) => keys.dimensionCachePart(p.orgId, p.kind, p.refreshId, p.part),
  attributes: (p) => ({ data: p.data }),
});

/** Points at the refresh whose cache parts are current. */
interface CachePointer {
  refreshId: string;
  refreshedAt: string;
  parts: number;
}

const cachePointers = defineEntity<CachePointer & { orgId: string; kind: CacheKind }, CachePointer>({
  name: 'dimension-cache',
  schemaVersion: SCHEMA_VERSION,
  key: (p) => keys.dimensionCachePointer(p.orgId, p.kind),
  attributes: (p) => ({ refreshId: p.refreshId, refreshedAt: p.refreshedAt, parts: p.parts }),
  read: (item) => item as unknown as CachePointer,
});

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
  /** Why the file was rejected, as one sentence for the uploader (a malformed file names the row and column). */
  error?: string;
  /** A stable reason code of a rejection (`UNKNOWN_ORGANIZATION`, `MALFORMED_FILE`, …). */
  code?: string;
  row?: number;
  column?: string;
  /**
   * A rejection that a later delivery of the same object may overturn (the organisation was not
   * registered yet): the next event of that object version is ingested instead of skipped.
   */
  retryable?: boolean;
  /** The upload's id (`upl_…`, from the object key and version): `/billing/uploads/{id}`. */
  uploadId?: string;
  /** The uploaded file's name (the object key's last part). */
  file?: string;
  /**
   * The format the file was detected as: `focus`, `aws-cur-1`, `aws-cur-2`, `azure`, `gcp`, `oci`
   * (the warehouse's `BillingFormat`); absent when the upload was refused before detection.
   */
  format?: string;
  /** Data files joined into this upload (a CUR manifest's parts). */
  parts?: number;
  /** The source months this upload replaced, with both versions' rows and cost per currency. */
  replaced?: SourceChange[];
  /** One sentence per replaced source month that lost a marked share of its rows or cost. */
  warnings?: string[];
  /** Until when the replaced versions can be restored (`POST /billing/uploads/{id}/restore`). */
  restorableUntil?: string;
  /** A restore of the replaced versions: asked (`restoreId`, `restoreRequestedAt`), then done. */
  restoreId?: string;
  restoreRequestedAt?: string;
  restoredAt?: string;
  restored?: SourceChange[];
  /** The FOCUS conformance report of the converted rows (docs/focus-conformance.md). */
  conformance?: ConformanceReport;
}

/** What a successful ingestion records beyond its status. */
export type IngestionOutcome = Pick<
  IngestionRecord,
  | 'rows'
  | 'months'
  | 'uploadId'
  | 'file'
  | 'format'
  | 'parts'
  | 'replaced'
  | 'warnings'
  | 'restorableUntil'
  | 'conformance'
> & { rows: number; months: string[]; finishedAt: string };

export async function getIngestion(
  orgId: string,
  objectKey: string,
  version: string,
): Promise<IngestionRecord | undefined> {
  return getItem(keys.ingestion(orgId, objectKey, version), ingestions.read);
}

/**
 * Marks an ingestion as started unless it already finished (a redelivered event). Returns false
 * then. A retryable rejection does not count as finished.
 */
export async function startIngestion(record: IngestionRecord): Promise<boolean> {
  return ingestions.putIf(record, {
    expression: 'attribute_not_exists(pk) OR #s = :processing OR retryable = :true',
    names: { '#s': 'status' },
    values: { ':processing': 'processing', ':true': true },
  });
}

/**
 * Records the rejection of an upload: the whole record, whether or not the ingestion was started
 * (an upload of an unknown organisation is rejected before it starts). Terminal unless
 * `retryable`: the same object version is then never ingested again. A record that already
 * succeeded is left as it is. Answers whether it wrote.
 */
export async function rejectIngestion(
  record: Pick<IngestionRecord, 'orgId' | 'objectKey' | 'version'>,
  detail: {
    error: string;
    code?: string;
    row?: number;
    column?: string;
    retryable?: boolean;
    format?: string;
    finishedAt: string;
  },
): Promise<boolean> {
  const set: Record<string, unknown> = {
    ...ingestions.envelope,
    orgId: record.orgId,
    objectKey: record.objectKey,
    version: record.version,
    status: 'rejected',
    error: detail.error,
    finishedAt: detail.finishedAt,
    ...(detail.code !== undefined ? { code: detail.code } : {}),
    ...(detail.row !== undefined ? { row: detail.row } : {}),
    ...(detail.column !== undefined ? { column: detail.column } : {}),
    ...(detail.retryable ? { retryable: true } : {}),
    ...(detail.format !== undefined ? { format: detail.format } : {}),
  };
  const removed = ['code', 'row', 'column', 'retryable', 'rows', 'months', 'format'].filter(
    (a) => !(a in set),
  );
  const names = [...Object.keys(set), ...removed];
  const alias = (a: string) => `#a${names.indexOf(a)}`;
  return conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.ingestion(record.orgId, record.objectKey, record.version),
        UpdateExpression: `SET ${Object.keys(set)
          .map((a, i) => `${alias(a)} = :v${i}`)
          .join(', ')}, #started = if_not_exists(#started, :f) REMOVE ${removed.map(alias).join(', ')}`,
        ConditionExpression: `attribute_not_exists(pk) OR ${alias('status')} <> :succeeded`,
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((a, i) => [`#a${i}`, a])),
          '#started': 'startedAt',
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(Object.values(set).map((v, i) => [`:v${i}`, v])),
          ':f': detail.finishedAt,
          ':succeeded': 'succeeded',
        },
      }),
    ),
  );
}

/** Records a successful ingestion (and what it replaced) and the refresh it asks for, in one transaction. */
export async function completeIngestion(
  record: Pick<IngestionRecord, 'orgId' | 'objectKey' | 'version'>,
  result: IngestionOutcome,
  refresh: OutboxEntry,
): Promise<void> {
  const set: Record<string, unknown> = { status: 'succeeded', ...result };
  for (const [k, value] of Object.entries(set)) if (value === undefined) delete set[k];
  await transact([
    {
      Update: {
        TableName: tableName(),
        Key: keys.ingestion(record.orgId, record.objectKey, record.version),
        ...setAll(set),
      },
    },
    outboxPut(refresh),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Labels and virtual dimensions

/** Every item of a partition whose sort key starts with `prefix`, raw. */
function queryAll(pk: string, prefix: string, consistent = false): Promise<Item[]> {
  return queryPartition(pk, (item) => item, { skPrefix: prefix, consistent });
}

export async function listPublishedLabels(orgId: string): Promise<PublishedLabel[]> {
  const items = await queryAll(keys.dimensionsPartition(orgId), keys.labelConfig(orgId, '').sk, true);
  return items.map(labelConfigs.read).sort((a, b) => a.name.localeCompare(b.name));
}

export async function listVirtualDimensions(orgId: string): Promise<VirtualDimension[]> {
  const items = await queryAll(keys.dimensionsPartition(orgId), keys.virtualDimension(orgId, '').sk, true);
  return items
    .map(vdims.read)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/**
 * One page of virtual dimensions in id order (ids are ULIDs, so creation order). The cursor is the
 * page's `LastEvaluatedKey`; one of another organisation or another kind of item is a 400.
 */
export async function listVirtualDimensionPage(
  orgId: string,
  limit: number,
  cursor?: string,
): Promise<Page<VirtualDimension>> {
  const { pk, sk: prefix } = keys.virtualDimension(orgId, '');
  return queryPage({
    partition: { attribute: 'pk', value: pk },
    skPrefix: prefix,
    consistent: true,
    limit,
    cursor,
    map: vdims.read,
  });
}

export async function getVirtualDimension(orgId: string, id: string): Promise<VirtualDimension | undefined> {
  return vdims.get(keys.virtualDimension(orgId, id));
}

export async function insertVirtualDimension(vdim: VirtualDimension): Promise<void> {
  await vdims.insert(vdim);
}

/** Replaces a virtual dimension if it is still at `expectedVersion`; otherwise a 409. */
export async function replaceVirtualDimension(
  vdim: VirtualDimension,
  expectedVersion: number,
): Promise<void> {
  await vdims.replace(vdim, expectedVersion);
}

/** A write's condition: the virtual dimension is still at `expectedVersion`. */
const atVersion = (expectedVersion: number): Condition => ({
  expression: 'attribute_exists(pk) AND #v = :v',
  names: { '#v': 'version' },
  values: { ':v': expectedVersion },
});

export async function deleteVirtualDimension(
  orgId: string,
  id: string,
  expectedVersion: number,
): Promise<void> {
  await ifConditionFails(
    db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.virtualDimension(orgId, id),
        ...conditionInput(atVersion(expectedVersion)),
      }),
    ),
    versionConflict,
  );
}

export interface PublishWrite {
  labels: PublishedLabel[];
  /** Drafts promoted: their new state, written only if still at the version read. */
  promote: { vdim: VirtualDimension; expectedVersion: number }[];
  /** Published dimensions whose deletion was pending. */
  remove: { id: string; expectedVersion: number }[];
  refresh: OutboxEntry;
}

/**
 * Promotes a publish in one transaction: label configurations, promoted drafts, removals and the
 * outbox entry of the refresh. All of it or nothing; a draft edited meanwhile cancels it (409).
 */
export async function commitPublish(orgId: string, write: PublishWrite): Promise<void> {
  const items = [
    ...write.labels.map((label) => labelConfigs.transactPut({ ...label, orgId }, null)),
    ...write.promote.map(({ vdim, expectedVersion }) => vdims.transactPut(vdim, atVersion(expectedVersion))),
    ...write.remove.map(({ id, expectedVersion }) => ({
      Delete: {
        TableName: tableName(),
        Key: keys.virtualDimension(orgId, id),
        ...conditionInput(atVersion(expectedVersion)),
      },
    })),
    outboxPut(write.refresh),
  ];
  if (items.length > 100) throw new Error(`publish transaction too large (${items.length} items)`);
  await transact(items, (codes, error) => {
    if (codes.includes('ConditionalCheckFailed')) throw new ConflictError('DIMENSIONS_CHANGED');
    throw error;
  });
}

// ---------------------------------------------------------------------------------------------
// Refresh status and caches

export async function getRefreshStatus(orgId: string): Promise<RefreshStatus | undefined> {
  return refreshStatuses.get(keys.refreshStatus(orgId));
}

/** Writes the status fields given, keeping the others (the last success survives a failure). */
export async function updateRefreshStatus(orgId: string, fields: Partial<RefreshStatus>): Promise<void> {
  const entries = Object.entries({ ...fields, orgId }).filter(([, v]) => v !== undefined);
  const remove = Object.entries(fields)
    .filter(([, v]) => v === undefined)
    .map(([k]) => k);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ...refreshStatuses.envelopeSet.values };
  const sets = [refreshStatuses.envelopeSet.expression];
  entries.forEach(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:f${i}`] = v;
    sets.push(`#f${i} = :f${i}`);
  });
  remove.forEach((k, i) => {
    names[`#r${i}`] = k;
  });
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.refreshStatus(orgId),
      UpdateExpression: `SET ${sets.join(', ')}${remove.length ? ` REMOVE ${remove.map((_, i) => `#r${i}`).join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

const DONE_TTL_SECONDS = 7 * 86_400;

export async function isRefreshDone(orgId: string, requestId: string): Promise<boolean> {
  return (await getItem(keys.refreshDone(orgId, requestId), () => true, { consistent: true })) ?? false;
}

export async function markRefreshDone(
  orgId: string,
  requestId: string,
  outcome: string,
  at: Date,
): Promise<void> {
  await refreshesDone.put({ orgId, requestId, outcome, at });
}

/** Cache parts are gzipped JSON split into chunks well under DynamoDB's 400 KB item limit. */
const CACHE_PART_BYTES = 300_000;

/**
 * Replaces a cache: the new parts are written under the refresh's id, then the pointer is moved
 * to them (only forward in time, so a slow older refresh cannot overwrite a newer cache), then
 * the previous parts are deleted. Readers follow the pointer, so they see a whole cache.
 */
export async function writeCache(
  orgId: string,
  kind: CacheKind,
  refreshId: string,
  refreshedAt: string,
  payload: unknown,
): Promise<boolean> {
  const data = gzipSync(Buffer.from(JSON.stringify(payload)));
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length || parts.length === 0; at += CACHE_PART_BYTES) {
    parts.push(data.subarray(at, at + CACHE_PART_BYTES));
  }
  for (let i = 0; i < parts.length; i++) {
    await cacheParts.put({ orgId, kind, refreshId, part: i, data: parts[i]! });
  }
  const previous = await cachePointers.get(keys.dimensionCachePointer(orgId, kind));
  const moved = await cachePointers.putIf(
    { orgId, kind, refreshId, refreshedAt, parts: parts.length },
    { expression: 'attribute_not_exists(pk) OR refreshedAt <= :at', values: { ':at': refreshedAt } },
  );
  if (!moved) {
    await deleteParts(orgId, kind, refreshId);
    return false;
  }
  if (previous && previous.refreshId !== refreshId) await deleteParts(orgId, kind, previous.refreshId);
  return true;
}

async function deleteParts(orgId: string, kind: CacheKind, refreshId: string): Promise<void> {
  const items = await queryAll(
    keys.dimensionsPartition(orgId),
    keys.dimensionCachePartPrefix(kind, refreshId),
  );
  for (let i = 0; i < items.length; i += 25) {
    await db().send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName()]: items
            .slice(i, i + 25)
            .map((it) => ({ DeleteRequest: { Key: { pk: it.pk as string, sk: it.sk as string } } })),
        },
      }),
    );
  }
}

/** The current cache, or undefined before the first refresh. */
export async function readCache<T>(
  orgId: string,
  kind: CacheKind,
): Promise<{ refreshedAt: string; payload: T } | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const pointer = await cachePointers.get(keys.dimensionCachePointer(orgId, kind));
    if (!pointer) return undefined;
    const items = await queryAll(
      keys.dimensionsPartition(orgId),
      keys.dimensionCachePartPrefix(kind, pointer.refreshId),
      true,
    );
    // A refresh may have replaced the cache between the two reads: read the pointer again.
    if (items.length !== pointer.parts) continue;
    const data = Buffer.concat(items.map((i) => Buffer.from(i.data as Uint8Array)));
    return { refreshedAt: pointer.refreshedAt, payload: JSON.parse(gunzipSync(data).toString('utf8')) as T };
  }
  return undefined;
}
