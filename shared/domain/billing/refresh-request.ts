import * as v from 'valibot';
import { type OutboxEntry, putOutboxEntry } from '../../db/outbox-repo';
import { newId } from '../../ids';
import { QUEUE } from '../../queues';
import { deliver } from './outbox';

// Built by a function marked side-effect free, so a bundle that only writes requests (the publish
// route) drops the schema: esbuild cannot tell that valibot's calls in another module are pure.
/* @__NO_SIDE_EFFECTS__ */
function refreshRequestSchema() {
  return v.object({
    type: v.literal('warehouse-refresh'),
    requestId: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
    orgId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
    mode: v.picklist(['full', 'light']),
    reason: v.pipe(v.string(), v.maxLength(40)),
    requestedAt: v.pipe(v.string(), v.isoTimestamp()),
  });
}

/**
 * The message of the `warehouse-refresh` queue. `full` rebuilds the org's enriched table (labels,
 * enrichments) and then does everything `light` does: replace the virtual-dimension view and
 * recompute the dimension and candidate caches.
 */
export const RefreshRequestSchema = /* @__PURE__ */ refreshRequestSchema();
export type RefreshRequest = v.InferOutput<typeof RefreshRequestSchema>;
export type RefreshMode = RefreshRequest['mode'];

export const REFRESH_QUEUE = QUEUE.warehouseRefresh;

/** An outbox entry that asks for a refresh of `orgId`. */
export function refreshOutboxEntry(orgId: string, mode: RefreshMode, reason: string, now: Date): OutboxEntry {
  const requestId = newId('rfr');
  const requestedAt = now.toISOString();
  const message: RefreshRequest = { type: 'warehouse-refresh', requestId, orgId, mode, reason, requestedAt };
  return {
    id: requestId,
    orgId,
    queue: REFRESH_QUEUE,
    body: JSON.stringify(message),
    createdAt: requestedAt,
    attempts: 0,
  };
}

/** Parses a queue message; anything else is a permanent failure (it goes to the DLQ after retries). */
export function parseRefreshRequest(body: string): RefreshRequest {
  return v.parse(RefreshRequestSchema, JSON.parse(body));
}

/**
 * Asks for a refresh of `orgId` from anywhere (for example after an enrichment document changed):
 * the request is recorded in the outbox first, then sent, so it survives an SQS outage.
 */
export async function requestRefresh(
  orgId: string,
  mode: RefreshMode,
  reason: string,
  now = new Date(),
): Promise<string> {
  const entry = refreshOutboxEntry(orgId, mode, reason, now);
  await putOutboxEntry(entry);
  await deliver(entry);
  return entry.id;
}
