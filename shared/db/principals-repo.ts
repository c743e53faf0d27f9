import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuthContext, Principal } from '../auth/principal';
import { UnauthorizedError } from '../errors';
import { db, tableName } from './client';
import { keys } from './keys';

export interface ApiKeyLookup {
  keyId: string;
  orgId: string;
  principalId: string;
  kind: 'user' | 'org';
  revokedAt?: string | null;
  lastUsedAt?: string | null;
}

/** The authorizer's one read for an API key: the global item keyed by the key's hash. */
export async function findApiKeyByHash(hash: string): Promise<ApiKeyLookup | undefined> {
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

function roleFromClaim(claim: string | undefined): Principal['role'] {
  return claim && /admin/i.test(claim) ? 'admin' : 'member';
}

/**
 * Loads what may change between requests (role, teams, key revocation) with one strongly
 * consistent query on the principal's partition, so a revoked key or a removed team member is
 * refused on the very next request even though the authorizer result is cached.
 */
export async function loadPrincipal(auth: AuthContext): Promise<Principal> {
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.principalPartition(auth.orgId, auth.principalId) },
      ConsistentRead: true,
    }),
  );
  const items = res.Items ?? [];
  let profile: Record<string, unknown> | undefined;
  const teamIds: string[] = [];
  let keyMirror: Record<string, unknown> | undefined;
  for (const item of items) {
    const sk = String(item.sk);
    if (sk === 'PROFILE') profile = item;
    else if (sk.startsWith('TEAM#')) teamIds.push(sk.slice('TEAM#'.length));
    else if (auth.keyId && sk === `APIKEY#${auth.keyId}`) keyMirror = item;
  }
  if (auth.credential === 'apikey' && (!keyMirror || keyMirror.revokedAt)) throw new UnauthorizedError();
  if (profile?.disabledAt) throw new UnauthorizedError();
  // An API key always belongs to a stored principal; a JWT user without a stored profile is a
  // first-time user of the IdP's organisation and gets the role its token claims.
  if (auth.credential === 'apikey' && auth.kind === 'user' && !profile) throw new UnauthorizedError();
  const role: Principal['role'] =
    auth.kind === 'org'
      ? 'admin'
      : profile?.role === 'admin'
        ? 'admin'
        : profile
          ? 'member'
          : roleFromClaim(auth.claimRole);
  return {
    orgId: auth.orgId,
    principalId: auth.principalId,
    kind: auth.kind,
    role,
    teamIds,
    ...(typeof profile?.email === 'string' ? { email: profile.email } : {}),
  };
}
