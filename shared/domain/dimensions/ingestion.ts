import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { completeIngestion, rejectIngestion, startIngestion } from '../../db/dimensions-repo';
import { organizationExists } from '../../db/organizations-repo';
import { log } from '../../log';
import { IngestRejected } from '../../warehouse/ingest/errors';
import { MalformedFileError } from '../../warehouse/ingest/normalise';
import { downloadObject, isSafeObjectKey } from '../../warehouse/object-store';
import { getWarehouse } from '../../warehouse/warehouse';
import { deliver } from './outbox';
import { refreshOutboxEntry } from './refresh-request';

/**
 * Billing uploads: an object written under `uploads/<orgId>/…` of the billing bucket (S3 in AWS,
 * the local bucket folder under `npm start`) raises an S3 `ObjectCreated` event on the
 * `billing-ingest` queue. The worker ingests it into the warehouse, records the outcome, and asks
 * for a full refresh through the outbox so the data shows up in candidates and dimensions.
 */
export const UPLOAD_PREFIX = 'uploads/';
const ORG_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export interface UploadedObject {
  bucket: string;
  key: string;
  /** Version id, else eTag, else sequencer: what makes one upload of a key distinct from the next. */
  version: string;
  size?: number;
}

/** The S3 records of an SQS message body. A test event or anything else yields none. */
export function s3ObjectsOf(body: string): UploadedObject[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const records = (parsed as { Records?: unknown })?.Records;
  if (!Array.isArray(records)) return [];
  const out: UploadedObject[] = [];
  for (const r of records as Record<string, unknown>[]) {
    const s3 = r?.s3 as { bucket?: { name?: string }; object?: Record<string, unknown> } | undefined;
    const name = typeof r?.eventName === 'string' ? r.eventName : '';
    if (!s3?.bucket?.name || !s3.object || !name.startsWith('ObjectCreated')) continue;
    const rawKey = String(s3.object.key ?? '');
    // S3 event keys are URL-encoded with `+` for spaces.
    let key: string;
    try {
      key = decodeURIComponent(rawKey.replaceAll('+', ' '));
    } catch {
      continue;
    }
    const version = String(s3.object.versionId ?? s3.object.eTag ?? s3.object.sequencer ?? 'unversioned');
    out.push({
      bucket: s3.bucket.name,
      key,
      version,
      ...(typeof s3.object.size === 'number' ? { size: s3.object.size } : {}),
    });
  }
  return out;
}

/** The organisation an upload belongs to, from `uploads/<orgId>/<file>`; undefined when the key is not one. */
export function orgOfKey(key: string): string | undefined {
  if (!key.startsWith(UPLOAD_PREFIX) || !isSafeObjectKey(key)) return undefined;
  const [orgId, ...rest] = key.slice(UPLOAD_PREFIX.length).split('/');
  if (!orgId || !ORG_ID.test(orgId) || !rest.length || !rest.at(-1)) return undefined;
  return orgId;
}

export type UploadOutcome = 'ingested' | 'rejected' | 'duplicate' | 'ignored';

/**
 * Ingests one uploaded object. Idempotent: a finished upload (ingested or rejected) is skipped
 * when its event is redelivered; an interrupted one is ingested again, which replaces the same
 * months with the same rows. Throws only on transient failures, so the message is retried.
 */
export async function processUpload(
  obj: UploadedObject,
  now: () => Date = () => new Date(),
): Promise<UploadOutcome> {
  const orgId = orgOfKey(obj.key);
  if (!orgId) {
    log.warn('billing upload outside uploads/<orgId>/ ignored', { key: obj.key });
    return 'ignored';
  }
  if (!(await organizationExists(orgId))) {
    log.warn('billing upload for an unknown organisation ignored', { key: obj.key });
    return 'ignored';
  }
  const ref = { orgId, objectKey: obj.key, version: obj.version };
  if (!(await startIngestion({ ...ref, status: 'processing', startedAt: now().toISOString() })))
    return 'duplicate';
  const file = join(tmpdir(), `billing-${randomUUID()}`);
  try {
    await downloadObject(obj.bucket, obj.key, file);
    const warehouse = await getWarehouse();
    const sourceName = obj.key.split('/').at(-1) ?? obj.key;
    let result: { rows: number; months: string[] };
    try {
      result = await warehouse.ingestFile({ orgId, path: file, sourceName });
    } catch (error) {
      if (!(error instanceof MalformedFileError || error instanceof IngestRejected)) throw error;
      const at = error instanceof MalformedFileError ? error : undefined;
      await rejectIngestion(ref, {
        error: error.message,
        ...(at?.row !== undefined ? { row: at.row } : {}),
        ...(at?.column !== undefined ? { column: at.column } : {}),
        finishedAt: now().toISOString(),
      });
      log.info('billing upload rejected', { key: obj.key, error: error.message });
      return 'rejected';
    }
    const refresh = refreshOutboxEntry(orgId, 'full', 'ingest', now());
    await completeIngestion(ref, { ...result, finishedAt: now().toISOString() }, refresh);
    await deliver(refresh);
    log.info('billing upload ingested', { key: obj.key, rows: result.rows, months: result.months });
    return 'ingested';
  } finally {
    await rm(file, { force: true });
  }
}
