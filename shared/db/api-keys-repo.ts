import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../ids';
import { log } from '../log';
import { db, isConditionalCheckFailed, tableName } from './client';
import { defineEntity, transact } from './entity';
import { queryPartition } from './items';
import { INDEX_ON, keys } from './keys';
import { type Page, queryNewest } from './page';
import { conditionHeld } from './writes';

/**
 * API keys as minted, listed and revoked. Each key is two items written together (`storeNewApiKey`):
 * the global lookup `APIKEY#<sha256> / KEY` the credential check reads, and the mirror in
 * the owner's principal partition that `loadPrincipal` checks on every request and lists read.
 * Neither holds the key itself; the mirror's `hash` is how revocation finds the lookup item.
 */
export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  kind: 'user' | 'org';
  principalId: string;
  createdById: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface StoredKey extends ApiKeyRecord {
  hash: string;
}

function fromItem(item: Record<string, unknown>): StoredKey {
  return {
    id: String(item.id),
    name: String(item.name ?? ''),
    prefix: String(item.prefix ?? ''),
    kind: item.kind === 'org' ? 'org' : 'user',
    principalId: String(item.principalId),
    createdById: String(item.createdById ?? ''),
    createdAt: String(item.createdAt ?? ''),
    lastUsedAt: typeof item.lastUsedAt === 'string' ? item.lastUsedAt : null,
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : null,
    hash: String(item.hash ?? ''),
  };
}

/** The global item the credential check reads, keyed by the key's hash. */
interface KeyLookup {
  hash: string;
  keyId: string;
  orgId: string;
  principalId: string;
  kind: 'user' | 'org';
  createdAt: string;
}

const lookups = defineEntity<KeyLookup>({
  name: 'apiKeyLookup',
  schemaVersion: 1,
  key: (l) => keys.apiKeyLookup(l.hash),
  attributes: ({ hash: _hash, ...lookup }) => lookup,
});

/** The mirror in the owner's principal partition, in the org's key index (GSI1) by creation time. */
const mirrors = defineEntity<StoredKey & { orgId: string }, StoredKey>({
  name: 'apiKey',
  schemaVersion: 1,
  key: (k) => keys.principalKey(k.orgId, k.principalId, k.id),
  indexes: (k) => keys.apiKeysIndex(k.orgId, `${k.createdAt}#${k.id}`),
  attributes: ({ orgId: _org, ...k }) => k,
  read: fromItem,
});

/** The public view of a key: never the key, never its hash. */
export function publicView(k: StoredKey | ApiKeyRecord): ApiKeyRecord {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    kind: k.kind,
    principalId: k.principalId,
    createdById: k.createdById,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  };
}

/** A principal's keys, newest first, strongly consistent (one query on the principal partition). */
export async function listPrincipalKeys(orgId: string, principalId: string): Promise<StoredKey[]> {
  const listing = keys.principalKeysListing(orgId, principalId);
  const found = await queryPartition(listing.pk, fromItem, { skPrefix: listing.skPrefix });
  return found.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** Every key of the organisation, newest first (GSI1 `ORG#o#APIKEYS`, eventually consistent). */
export async function listOrgKeys(orgId: string, limit: number, cursor?: string): Promise<Page<StoredKey>> {
  return queryNewest(keys.apiKeysIndex(orgId, ''), { limit, cursor }, fromItem);
}

/** One key of a principal, by id (strongly consistent). */
export const getPrincipalKey = (orgId: string, principalId: string, keyId: string) =>
  mirrors.get(keys.principalKey(orgId, principalId, keyId));

/**
 * One key of the organisation by id, whoever owns it: the org's key index filtered by id. A key id
 * does not name its owner, so this reads the org's key list (keys per org are few); the caller's
 * own keys are tried first with a direct read.
 */
export async function findOrgKey(orgId: string, keyId: string): Promise<StoredKey | undefined> {
  const index = keys.apiKeysIndex(orgId, '');
  let start: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEX_ON.gsi1pk,
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: 'id = :id',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':id': keyId },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const item = res.Items?.[0];
    if (item) return getPrincipalKey(orgId, String(item.principalId), keyId);
    start = res.LastEvaluatedKey;
  } while (start);
  return undefined;
}

/**
 * Revokes a key: `revokedAt` on the lookup item (the credential check refuses it) and on the mirror
 * (`loadPrincipal` refuses it on the very next request, even with a cached lookup answer), in
 * one transaction. Answers false if it was already revoked (nothing written).
 */
export async function revokeApiKey(
  orgId: string,
  key: { id: string; principalId: string; hash: string },
  at: string,
): Promise<boolean> {
  const mirrorRevoke = {
    TableName: tableName(),
    Key: keys.principalKey(orgId, key.principalId, key.id),
    UpdateExpression: 'SET revokedAt = :at',
    ConditionExpression:
      'attribute_exists(pk) AND (attribute_not_exists(revokedAt) OR attribute_type(revokedAt, :null))',
    ExpressionAttributeValues: { ':at': at, ':null': 'NULL' },
  };
  const outcome = await transact(
    [
      { Update: mirrorRevoke },
      {
        Update: {
          TableName: tableName(),
          Key: keys.apiKeyLookup(key.hash),
          UpdateExpression: 'SET revokedAt = :at',
          // The lookup must be this org's key of this id: a forged hash can't revoke another's key.
          ConditionExpression: 'attribute_exists(pk) AND keyId = :id AND orgId = :org',
          ExpressionAttributeValues: { ':at': at, ':id': key.id, ':org': orgId },
        },
      },
    ],
    ([mirror, lookup], error) => {
      if (mirror === 'ConditionalCheckFailed') return 'already revoked' as const;
      if (lookup !== 'ConditionalCheckFailed') throw error;
      return 'lookup damaged' as const;
    },
  );
  if (outcome !== 'lookup damaged') return outcome === true;
  // The lookup item is gone or not this key's (a damaged pair): the key cannot authenticate, but the
  // mirror still says active, so revoke the mirror alone.
  return conditionHeld(db().send(new UpdateCommand(mirrorRevoke)));
}

/** `lastUsedAt` is written at most once per this interval per key. */
export const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/**
 * Records that a key was used, cheaply: nothing when the lookup item says it was recorded less than
 * an hour ago; otherwise one conditional update of the lookup item (so concurrent requests
 * write once) and, when that wins, one of the mirror that lists read. Never throws: a failure to
 * record must not fail the request.
 */
export async function recordApiKeyUse(
  hash: string,
  key: { orgId: string; principalId: string; keyId: string; lastUsedAt?: string | null },
  now: Date,
): Promise<boolean> {
  const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
  if (key.lastUsedAt && key.lastUsedAt > cutoff) return false;
  const at = now.toISOString();
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiKeyLookup(hash),
        UpdateExpression: 'SET lastUsedAt = :at',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR attribute_type(lastUsedAt, :null) OR lastUsedAt < :cutoff)',
        ExpressionAttributeValues: { ':at': at, ':cutoff': cutoff, ':null': 'NULL' },
      }),
    );
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.principalKey(key.orgId, key.principalId, key.keyId),
        UpdateExpression: 'SET lastUsedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) log.warn('could not record API key use', { error });
    return false;
  }
}

export interface CreatedApiKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  principalId: string;
  kind: 'user' | 'org';
  createdAt: string;
}

/**
 * Stores a freshly minted API key by its hash only (the key itself, its prefix and hash come from
 * the caller: minting is the auth rules' business, `shared/domain/apikeys/mint.ts`): the global
 * lookup item (for the credential check) and the principal-partition mirror (for per-request revocation
 * checks and listing), in one transaction.
 */
export async function storeNewApiKey(
  orgId: string,
  principalId: string,
  kind: 'user' | 'org',
  name: string,
  createdById: string,
  minted: { key: string; prefix: string; hash: string },
): Promise<CreatedApiKey> {
  const { key, prefix, hash } = minted;
  const id = newId('key');
  const createdAt = new Date().toISOString();
  await transact([
    lookups.transactPut({ hash, keyId: id, orgId, principalId, kind, createdAt }),
    mirrors.transactPut(
      {
        orgId,
        id,
        hash,
        prefix,
        name,
        principalId,
        kind,
        createdById,
        createdAt,
        revokedAt: null,
        lastUsedAt: null,
      },
      null,
    ),
  ]);
  return { id, key, prefix, name, principalId, kind, createdAt };
}
