import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { Principal } from '../../auth/principal';
import type { IngestionRecord } from '../../db/dimensions-repo';
import type { OutboxEntry } from '../../db/outbox-repo';
import { claimRestore, getUpload, listUploads } from '../../db/uploads-repo';
import { ConflictError, NotFoundError } from '../../errors';
import { newId } from '../../ids';
import { QUEUE } from '../../queues';
import { deliver } from '../billing/outbox';

/**
 * Billing uploads and the restore of what an upload replaced (docs/warehouse.md#replaced-versions).
 * An upload's id is derived from its object key and version, so a redelivered event gets the same
 * id. `POST /billing/uploads/{id}/restore` asks for the restore here (no warehouse code: the route's
 * bundle stays small); the billing-ingest worker does it (./restore.ts).
 */
export const BILLING_INGEST_QUEUE = QUEUE.billingIngest;

/** The id of the upload of `objectKey` at `version` in `orgId`: `upl_` and 26 hex digits. */
export function uploadIdOf(orgId: string, objectKey: string, version: string): string {
  const hash = createHash('sha256').update(`${orgId}\u0000${objectKey}\u0000${version}`).digest('hex');
  return `upl_${hash.slice(0, 26)}`;
}

/* @__NO_SIDE_EFFECTS__ */
function restoreRequestSchema() {
  return v.object({
    type: v.literal('billing-restore'),
    orgId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
    uploadId: v.pipe(v.string(), v.regex(/^upl_[a-f0-9]{26}$/)),
    restoreId: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
    requestedAt: v.pipe(v.string(), v.isoTimestamp()),
  });
}

/** The message of the billing-ingest queue that asks for a restore (next to S3 events). */
export const RestoreRequestSchema = /* @__PURE__ */ restoreRequestSchema();
export type RestoreRequest = v.InferOutput<typeof RestoreRequestSchema>;

/** The restore request a queue message body is, if it is one (S3 events are not). */
export function restoreRequestOf(body: string): RestoreRequest | undefined {
  try {
    const parsed = JSON.parse(body) as { type?: unknown };
    if (parsed?.type !== 'billing-restore') return undefined;
    return v.parse(RestoreRequestSchema, parsed);
  } catch {
    return undefined;
  }
}

/** An upload record as the API shows it: with its whole conformance report, or (a list) its score only. */
function uploadView(u: IngestionRecord, uploadId: string, full: boolean) {
  const conformance = u.conformance
    ? full
      ? u.conformance
      : { focusVersion: u.conformance.focusVersion, rows: u.conformance.rows, score: u.conformance.score }
    : undefined;
  const optional = {
    file: u.file,
    startedAt: u.startedAt,
    finishedAt: u.finishedAt,
    rows: u.rows,
    months: u.months,
    parts: u.parts,
    replaced: u.replaced,
    warnings: u.warnings,
    restorableUntil: u.restorableUntil,
    restoreRequestedAt: u.restoreRequestedAt,
    restoredAt: u.restoredAt,
    restored: u.restored,
    error: u.error,
    code: u.code,
    conformance,
  };
  return {
    id: uploadId,
    status: u.status,
    objectKey: u.objectKey,
    // Unknown while the upload is processed, or when it was refused before its format was recognised.
    format: u.format ?? 'unknown',
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/** `GET /billing/uploads/{id}`: the upload record of the caller's organisation (404 otherwise), with its conformance report. */
export async function readUpload(principal: Principal, uploadId: string) {
  const u = await getUpload(principal.orgId, uploadId);
  if (!u) throw new NotFoundError('UPLOAD_NOT_FOUND');
  return uploadView(u, uploadId, true);
}

/**
 * `GET /billing/uploads`: the caller's organisation's uploads, a page at a time newest first (by
 * the time each was first delivered), each with its conformance score (the per-requirement report is `GET /billing/uploads/{id}`).
 */
export async function listUploadRecords(principal: Principal, page: { limit: number; cursor?: string }) {
  const { items, nextCursor } = await listUploads(principal.orgId, page.limit, page.cursor);
  return {
    items: items.map((u) =>
      uploadView(u, u.uploadId ?? uploadIdOf(principal.orgId, u.objectKey, u.version), false),
    ),
    nextCursor,
  };
}

export interface RestoreAnswer {
  id: string;
  status: 'restoring';
  restoreId: string;
  /** The source months whose replaced version is put back. */
  sources: { month: string; provider: string; account: string }[];
}

/**
 * Asks for the restore of what upload `uploadId` replaced: 404 when the organisation has no such
 * upload or it kept no replaced version (only source months that dropped markedly keep one), 409 when it is not ingested, is already restored or being
 * restored, or its replaced versions have expired. The claim and the queued request are one
 * transaction (the outbox), so a request is never lost nor queued twice.
 */
export async function requestRestore(
  principal: Principal,
  uploadId: string,
  now: Date,
): Promise<RestoreAnswer> {
  const upload = await getUpload(principal.orgId, uploadId);
  if (!upload) throw new NotFoundError('UPLOAD_NOT_FOUND');
  if (upload.status !== 'succeeded') throw new ConflictError('UPLOAD_NOT_INGESTED');
  const kept = (upload.replaced ?? []).filter((c) => c.kept);
  if (!kept.length) throw new NotFoundError('NOTHING_TO_RESTORE');
  if (upload.restoreId)
    throw new ConflictError(upload.restoredAt ? 'ALREADY_RESTORED' : 'RESTORE_IN_PROGRESS');
  if (!upload.restorableUntil || now.toISOString() > upload.restorableUntil)
    throw new ConflictError('RESTORE_EXPIRED');
  const restoreId = newId('rst');
  const requestedAt = now.toISOString();
  const request: RestoreRequest = {
    type: 'billing-restore',
    orgId: principal.orgId,
    uploadId,
    restoreId,
    requestedAt,
  };
  const entry: OutboxEntry = {
    id: restoreId,
    orgId: principal.orgId,
    queue: BILLING_INGEST_QUEUE,
    body: JSON.stringify(request),
    createdAt: requestedAt,
    attempts: 0,
  };
  if (!(await claimRestore(upload, restoreId, requestedAt, entry)))
    throw new ConflictError('RESTORE_IN_PROGRESS');
  await deliver(entry);
  return {
    id: uploadId,
    status: 'restoring',
    restoreId,
    sources: kept.map(({ month, provider, account }) => ({ month, provider, account })),
  };
}
