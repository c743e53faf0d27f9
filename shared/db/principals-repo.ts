import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { keys, principalItemOf } from './keys';

/**
 * The shapes the table holds for the credential checks. They are the storage's own: the auth rules
 * declare what they need (`ApiKeyLookup`, `PrincipalRecords` in shared/auth) and
 * shared/http/identity.ts hands these reads to them, so the compiler holds the two together there
 * while storage imports nothing of auth.
 */
export interface StoredKeyLookup {
  keyId: string;
  orgId: string;
  principalId: string;
  kind: 'user' | 'org';
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface StoredPrincipalRecords {
  profile?: Record<string, unknown>;
  teamIds: string[];
  apiKey?: Record<string, unknown>;
}

/** The credential check's one read for an API key: the global item keyed by the key's hash. */
export async function findApiKeyByHash(hash: string): Promise<StoredKeyLookup | undefined> {
  const res = await db().send(new GetCommand({ TableName: tableName(), Key: keys.apiKeyLookup(hash) }));
  const item = res.Item;
  if (!item) return undefined;
  return {
    keyId: String(item.keyId),
    orgId: String(item.orgId),
    principalId: String(item.principalId),
    kind: item.kind === 'org' ? 'org' : 'user',
    revokedAt: (item.revokedAt as string | undefined) ?? null,
    lastUsedAt: (item.lastUsedAt as string | undefined) ?? null,
  };
}

/**
 * Reads what may change between requests (profile, teams, the status of API key `keyId`) with one
 * strongly consistent query on the principal's partition, so a revoked key or a removed team
 * member is seen on the very next request even though a warm container keeps the key's lookup answer. What the
 * records mean is `principalOf`'s rule (../auth/principal.ts).
 */
export async function readPrincipalRecords(
  orgId: string,
  principalId: string,
  keyId?: string,
): Promise<StoredPrincipalRecords> {
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.principalPartition(orgId, principalId) },
      ConsistentRead: true,
    }),
  );
  const records: StoredPrincipalRecords = { teamIds: [] };
  for (const item of res.Items ?? []) {
    const found = principalItemOf(String(item.sk));
    if (found.kind === 'profile') records.profile = item;
    else if (found.kind === 'team') records.teamIds.push(found.id);
    else if (found.kind === 'apiKey' && keyId && found.id === keyId) records.apiKey = item;
  }
  return records;
}
