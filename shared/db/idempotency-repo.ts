import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { defineEntity } from './entity';
import { keys } from './keys';
import { conditionHeld } from './writes';

/**
 * Idempotency records of `Idempotency-Key` requests (`IDEMP#<org>#<principal>#<sha256 of key>` / `REC`, kept
 * 24 h by TTL): a request claims its key with a conditional write before the route runs, and the
 * route's answer is stored on the claim afterwards, for every later request with the same key.
 */

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyRecord =
  | { state: 'pending'; requestHash: string; leaseUntil: number }
  | { state: 'done'; requestHash: string; leaseUntil: number; response: StoredResponse };

export interface IdempotencyClaim {
  orgId: string;
  principalId: string;
  key: string;
  /** Hash of the method, the route and the body: the same key with another request is refused. */
  requestHash: string;
}

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;

// The client's key is hashed into the item key: no separator inside it can make two principals'
// keys meet, and a key's text is never stored.
const keyOf = (c: Omit<IdempotencyClaim, 'requestHash'>) =>
  keys.idempotency(c.orgId, c.principalId, createHash('sha256').update(c.key).digest('base64url'));

/** A claim (no `schemaVersion`: these items live a day and never carried one). */
const claims = defineEntity<IdempotencyClaim & { leaseUntil: number; ttl: number }>({
  name: 'idempotency',
  key: keyOf,
  attributes: (c) => ({ state: 'pending', requestHash: c.requestHash, leaseUntil: c.leaseUntil, ttl: c.ttl }),
});

/**
 * Claims a key: succeeds when no live record holds it, or when the holder of the same request
 * let its lease lapse (its Lambda died before it answered). Answers the record that stopped it
 * otherwise (read consistently; `undefined` if it vanished in between).
 */
export async function claimIdempotencyKey(
  claim: IdempotencyClaim,
  now: number,
  leaseMs: number,
): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord | undefined }> {
  const nowSeconds = Math.floor(now / 1000);
  const claimed = await claims.putIf(
    { ...claim, leaseUntil: now + leaseMs, ttl: nowSeconds + IDEMPOTENCY_RETENTION_SECONDS },
    {
      // TTL deletion lags by up to days: an expired record counts as gone.
      expression:
        'attribute_not_exists(pk) OR #ttl < :nowSeconds OR (#s = :pending AND leaseUntil < :now AND requestHash = :hash)',
      names: { '#s': 'state', '#ttl': 'ttl' },
      values: { ':pending': 'pending', ':now': now, ':nowSeconds': nowSeconds, ':hash': claim.requestHash },
    },
  );
  if (claimed) return { claimed: true };
  return { claimed: false, existing: await getIdempotencyRecord(claim, now) };
}

/** The live record of a key (an expired one awaiting TTL deletion is `undefined`). */
export async function getIdempotencyRecord(
  claim: Omit<IdempotencyClaim, 'requestHash'>,
  now: number,
): Promise<IdempotencyRecord | undefined> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keyOf(claim), ConsistentRead: true }),
  );
  const item = res.Item;
  if (!item || (typeof item.ttl === 'number' && item.ttl < Math.floor(now / 1000))) return undefined;
  const base = { requestHash: String(item.requestHash), leaseUntil: Number(item.leaseUntil) };
  if (item.state === 'done') return { state: 'done', ...base, response: item.response as StoredResponse };
  return { state: 'pending', ...base };
}

/** Stores the answer on the claim (only while it is still this request's pending claim). */
export async function completeIdempotencyKey(
  claim: IdempotencyClaim,
  response: StoredResponse,
): Promise<void> {
  // Another holder (after this one's lease lapsed) answered first: its answer stays.
  await conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(claim),
        UpdateExpression: 'SET #s = :done, #r = :response',
        ConditionExpression: '#s = :pending AND requestHash = :hash',
        ExpressionAttributeNames: { '#s': 'state', '#r': 'response' },
        ExpressionAttributeValues: {
          ':done': 'done',
          ':pending': 'pending',
          ':hash': claim.requestHash,
          ':response': response,
        },
      }),
    ),
  );
}

/** Gives a pending claim up (the route failed), so a retry with the same key runs again. */
export async function releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
  await conditionHeld(
    db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keyOf(claim),
        ConditionExpression: '#s = :pending AND requestHash = :hash',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: { ':pending': 'pending', ':hash': claim.requestHash },
      }),
    ),
  );
}
