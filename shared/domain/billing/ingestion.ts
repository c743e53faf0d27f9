import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { completeIngestion, rejectIngestion, startIngestion } from '../../db/dimensions-repo';
import { organizationExists } from '../../db/organizations-repo';
import { putUploadPointer } from '../../db/uploads-repo';
import { log } from '../../log';
import { conformanceSummary } from '../../warehouse/conformance/report';
import { IngestRejected, UNKNOWN_ORGANIZATION } from '../../warehouse/ingest/errors';
import {
  type CurManifest,
  isManifestSchemePart,
  MANIFEST_LABEL,
  partObject,
  readManifestFile,
} from '../../warehouse/ingest/manifest';
import { MalformedFileError } from '../../warehouse/ingest/normalise';
import { joinParts } from '../../warehouse/ingest/parts';
import { markedDrops, RESTORABLE_DAYS } from '../../warehouse/ingest/replacements';
import { downloadObject, isSafeObjectKey } from '../../warehouse/object-store';
import type { IngestResult } from '../../warehouse/port';
import { getWarehouse } from '../../warehouse/warehouse';
import { uploadIdOf } from '../uploads/uploads';
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

/** `part`: a data file of a manifest-scheme export, ingested when its manifest lands. */
export type UploadOutcome = 'ingested' | 'rejected' | 'duplicate' | 'ignored' | 'part';

/** An AWS part file name: `<report>-<n>.csv.gz`, `<export>-00001.snappy.parquet`, … */
const PART_NAME = /-\d+\.(?:csv|csv\.gz|csv\.zip|parquet|snappy\.parquet|gz\.parquet)$/i;

/**
 * Downloads the parts a manifest lists and joins them into `dest`. Every part must be an object
 * of the manifest's bucket under the same `uploads/<orgId>/`, or the manifest is refused (a
 * manifest never reads another organisation's objects). A part not there yet is a transient
 * failure: the message is retried (S3 is strongly consistent, but a part may still be copied).
 */
async function downloadManifestParts(
  obj: UploadedObject,
  orgId: string,
  manifest: CurManifest,
  dest: string,
  temp: string[],
): Promise<number> {
  const prefix = `${UPLOAD_PREFIX}${orgId}/`;
  if (!manifest.parts.length)
    throw new IngestRejected(`The ${MANIFEST_LABEL[manifest.kind]} lists no data files.`, {
      code: 'EMPTY_MANIFEST',
    });
  const files: string[] = [];
  const names: string[] = [];
  for (const ref of manifest.parts) {
    const part = partObject(ref);
    if (
      (part.bucket && part.bucket !== obj.bucket) ||
      !part.key.startsWith(prefix) ||
      !isSafeObjectKey(part.key)
    )
      throw new IngestRejected(
        `The ${MANIFEST_LABEL[manifest.kind]} lists ${ref}, which is not under ${prefix} of this bucket: ` +
          'deliver the export to the prefix of your organisation.',
        { code: 'MANIFEST_PART_OUTSIDE' },
      );
    const file = join(tmpdir(), `billing-part-${randomUUID()}`);
    temp.push(file);
    await downloadObject(obj.bucket, part.key, file);
    files.push(file);
    names.push(part.key.split('/').at(-1) ?? part.key);
  }
  try {
    joinParts(files, dest, names);
  } catch (error) {
    throw new IngestRejected(`The export's parts could not be joined: ${(error as Error).message}.`, {
      code: 'PARTS_NOT_JOINED',
    });
  }
  return files.length;
}

/** One upload: the organisation, the object key and the version that makes it distinct. */
export interface UploadRef {
  orgId: string;
  objectKey: string;
  version: string;
}

/**
 * Records an upload as rejected, with the reason its uploader reads (`npm run ingest` prints it,
 * the ingestion record keeps it). The one way a rejection is recorded: `processUpload` calls it
 * for every `IngestRejected` (and malformed file) it meets. A rejection is terminal (the same
 * object version is not ingested again) unless `detail.retryable`. Never overwrites a success.
 */
export async function recordIngestRejection(
  ref: UploadRef,
  reason: string,
  detail: IngestRejected['detail'] = {},
  now: () => Date = () => new Date(),
): Promise<void> {
  await rejectIngestion(ref, { error: reason, ...detail, finishedAt: now().toISOString() });
  log.info('billing upload rejected', { key: ref.objectKey, code: detail.code, error: reason });
}

/** The known, user-facing rejection an error stands for; undefined for anything else (transient). */
function rejectionOf(error: unknown): IngestRejected | undefined {
  if (error instanceof IngestRejected) return error;
  if (error instanceof MalformedFileError) {
    return new IngestRejected(error.message, {
      code: 'MALFORMED_FILE',
      ...(error.format !== undefined ? { format: error.format } : {}),
      ...(error.row !== undefined ? { row: error.row } : {}),
      ...(error.column !== undefined ? { column: error.column } : {}),
    });
  }
  return undefined;
}

/** The sentence an upload for an unregistered organisation is rejected with. */
export function unknownOrganizationReason(orgId: string): string {
  if (!/^org_[A-Za-z0-9_-]{1,64}$/.test(orgId)) {
    return (
      `"${orgId}" is not an organisation id, so the upload was not ingested: upload under ` +
      `uploads/<orgId>/, where orgId is the organisation's id (org_…), the org_id claim of its users' tokens.`
    );
  }
  return (
    `Organisation ${orgId} is not registered, so its upload was not ingested. An org admin's first ` +
    `sign-in registers it (any request with their session JWT), or an operator runs ` +
    `"npm run org -- create ${orgId}"; then upload the file again.`
  );
}

/**
 * Ingests one uploaded object. Idempotent: a finished upload (ingested or rejected) is skipped
 * when its event is redelivered; an interrupted one is ingested again, which replaces the same
 * months with the same rows. An upload of an unregistered organisation is recorded as rejected
 * (retryable: once the organisation exists, a new event of the same object ingests it). Any
 * `IngestRejected` thrown on the way is recorded as a rejection with its message; any other error
 * is transient and thrown, so the message is retried and then dead-lettered.
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
  const name = obj.key.split('/').at(-1) ?? obj.key;
  if (isManifestSchemePart(obj.key) && PART_NAME.test(name)) {
    log.info('billing upload part waits for its manifest', { key: obj.key });
    return 'part';
  }
  const ref: UploadRef = { orgId, objectKey: obj.key, version: obj.version };
  if (!(await organizationExists(orgId))) {
    await recordIngestRejection(
      ref,
      unknownOrganizationReason(orgId),
      { code: UNKNOWN_ORGANIZATION, retryable: true },
      now,
    );
    return 'rejected';
  }
  const uploadId = uploadIdOf(orgId, obj.key, obj.version);
  const startedAt = now().toISOString();
  await putUploadPointer(ref, uploadId, startedAt);
  if (
    !(await startIngestion({
      ...ref,
      uploadId,
      file: name,
      status: 'processing',
      startedAt,
    }))
  )
    return 'duplicate';
  const file = join(tmpdir(), `billing-${randomUUID()}`);
  const temp = [file];
  try {
    let result: IngestResult;
    let parts: number | undefined;
    try {
      await downloadObject(obj.bucket, obj.key, file);
      // A CUR manifest: its parts, joined, are the upload.
      const manifest = readManifestFile(file);
      let path = file;
      if (manifest) {
        path = join(tmpdir(), `billing-joined-${randomUUID()}`);
        temp.push(path);
        parts = await downloadManifestParts(obj, orgId, manifest, path, temp);
      }
      const warehouse = await getWarehouse();
      result = await warehouse.ingestFile({ orgId, path, sourceName: name, uploadId });
    } catch (error) {
      const rejection = rejectionOf(error);
      if (!rejection) throw error;
      await recordIngestRejection(ref, rejection.message, rejection.detail, now);
      return 'rejected';
    }
    const refresh = refreshOutboxEntry(orgId, 'full', 'ingest', now());
    const warnings = markedDrops(result.replaced ?? []);
    await completeIngestion(
      ref,
      {
        rows: result.rows,
        months: result.months,
        uploadId,
        file: name,
        format: result.format,
        finishedAt: now().toISOString(),
        ...(parts !== undefined ? { parts } : {}),
        ...(result.replaced ? { replaced: result.replaced } : {}),
        ...(result.replaced?.some((c) => c.kept)
          ? { restorableUntil: new Date(now().getTime() + RESTORABLE_DAYS * 86_400_000).toISOString() }
          : {}),
        ...(warnings.length ? { warnings } : {}),
        ...(result.conformance ? { conformance: result.conformance } : {}),
      },
      refresh,
    );
    await deliver(refresh);
    log.info('billing upload ingested', {
      key: obj.key,
      rows: result.rows,
      months: result.months,
      warnings,
      ...(result.conformance ? { conformance: conformanceSummary(result.conformance) } : {}),
    });
    return 'ingested';
  } finally {
    await Promise.all(temp.map((f) => rm(f, { force: true })));
  }
}
