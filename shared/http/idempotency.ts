import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../auth/principal';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyClaim,
  releaseIdempotencyKey,
  type StoredResponse,
} from '../db/idempotency-repo';
import { ConflictError, UnprocessableError } from '../errors';
import { log } from '../log';
import { requestRejection, type ValidationStyle } from '../validation';
import type { HttpEvent, HttpMiddleware } from './event';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from './idempotency-key';
import { routeState } from './middlewares';
import type { RouteDef } from './route';

/**
 * `Idempotency-Key` on POST routes: a retried create gives the first answer instead of a second
 * record. After the request is known valid (credential, principal, schemas), its key is claimed
 * for the organisation and principal with a conditional write, stored with a hash of the method,
 * the route and the body; the route runs only for the request that won the claim, and its answer
 * is stored on the claim (24 h). Later requests with the key:
 * - the same request, answered: the stored status, headers and body, unchanged;
 * - the same request, still running: poll until it is answered (up to `WAIT_MS`, and never past
 *   its own Lambda's timeout), then 409 `IDEMPOTENCY_KEY_IN_USE` if it still is not;
 * - another body or route: 422 `IDEMPOTENCY_KEY_REUSED`, whatever the first one's state.
 * A route that throws gives its claim up, so a retry runs again. A key that is empty, longer than
 * `IDEMPOTENCY_KEY_MAX_LENGTH` or not printable ASCII is a 400 `INVALID_IDEMPOTENCY_KEY` (in the route's shape).
 */

/** How long a claim holds past its Lambda's timeout before the same request may take it over. */
const LEASE_MARGIN_MS = 5_000;
/** How long a duplicate waits for the first request's answer: at most this, and ... */
const WAIT_MS = 10_000;
/** ... ending this long before its own Lambda's timeout, so it answers its 409 itself. */
const TIMEOUT_MARGIN_MS = 1_000;
const POLL_MS = 50;

/** The header's value when sent (any spelling), else undefined; a bad value is the route's 400. */
export function idempotencyKeyOf(event: HttpEvent, style: ValidationStyle = 'plain'): string | undefined {
  const entry = Object.entries(event.headers ?? {}).find(
    ([k]) => k.toLowerCase() === IDEMPOTENCY_HEADER.toLowerCase(),
  );
  if (!entry || entry[1] === undefined) return undefined;
  const value = entry[1];
  if (
    value.length === 0 ||
    value.length > IDEMPOTENCY_KEY_MAX_LENGTH ||
    !IDEMPOTENCY_KEY_PATTERN.test(value)
  ) {
    throw requestRejection(style, 'INVALID_IDEMPOTENCY_KEY');
  }
  return value;
}

function requestHashOf(def: RouteDef, event: HttpEvent): string {
  const body = event.body ?? '';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return createHash('sha256')
    .update(`${def.method} ${def.path}\n${event.rawPath ?? ''}?${event.rawQueryString ?? ''}\n`)
    .update(text)
    .digest('base64url');
}

// The claim a request holds, for its `after` and `onError`.
const claims = new WeakMap<HttpEvent, IdempotencyClaim>();

function replay(response: StoredResponse): APIGatewayProxyStructuredResultV2 {
  return { statusCode: response.statusCode, headers: response.headers, body: response.body };
}

/** The middleware; a no-op on routes other than POST. Runs after `validation`. */
export function idempotency(def: RouteDef): HttpMiddleware {
  if (def.method !== 'POST') return { before: async () => undefined };
  return {
    before: async (request) => {
      const key = idempotencyKeyOf(request.event, def.validation ?? 'plain');
      if (key === undefined) return undefined;
      const principal = routeState(request.event).principal as Principal;
      // The body as parsed (the JSON parser replaced `event.body` with its value), so two copies
      // of one body hash alike whatever their spacing.
      const claim: IdempotencyClaim = {
        orgId: principal.orgId,
        principalId: principal.principalId,
        key,
        requestHash: requestHashOf(def, request.event),
      };
      const remaining = request.context.getRemainingTimeInMillis?.() || 60_000;
      const deadline = Date.now() + Math.min(WAIT_MS, remaining - TIMEOUT_MARGIN_MS);
      for (;;) {
        const now = Date.now();
        const outcome = await claimIdempotencyKey(claim, now, remaining + LEASE_MARGIN_MS);
        if (outcome.claimed) {
          claims.set(request.event, claim);
          return undefined;
        }
        const existing = outcome.existing;
        if (existing && existing.requestHash !== claim.requestHash) {
          throw new UnprocessableError('IDEMPOTENCY_KEY_REUSED');
        }
        if (existing?.state === 'done') return replay(existing.response);
        if (now >= deadline) throw new ConflictError('IDEMPOTENCY_KEY_IN_USE');
        // In flight (or given up just now: the next claim may win).
        await sleep(POLL_MS);
      }
    },
    after: async (request) => {
      const claim = claims.get(request.event);
      const response = request.response;
      if (!claim || !response) return;
      try {
        await completeIdempotencyKey(claim, {
          statusCode: response.statusCode ?? 200,
          headers: Object.fromEntries(
            Object.entries(response.headers ?? {}).map(([k, val]) => [k, String(val)]),
          ),
          body: response.body ?? '',
        });
      } catch (error) {
        // The record could not be stored (e.g. an answer over the item limit): the route's answer
        // still goes out, and the claim is given up so a retry runs rather than waits.
        log.warn('idempotency record not stored', {
          route: def.id,
          error: String((error as Error)?.name ?? error),
        });
        await releaseIdempotencyKey(claim).catch(() => undefined);
      }
    },
    onError: async (request) => {
      const claim = claims.get(request.event);
      if (claim) await releaseIdempotencyKey(claim).catch(() => undefined);
    },
  };
}
