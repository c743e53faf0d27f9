import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../auth/api-key-format';
import { newId } from '../ids';
import { db, isConditionalCheckFailed, tableName } from './client';
import { keys } from './keys';

/** Organisations, users, teams, memberships and API keys: the identity side of the table. */

export interface Organization {
  id: string;
  name: string;
  timezone: string;
  createdAt: string;
}

export interface UserProfile {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  createdAt: string;
}

/** Writes an item unless it already exists; answers whether it wrote. */
async function putIfAbsent(item: Record<string, unknown>): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

export async function ensureOrganization(org: Organization): Promise<boolean> {
  return putIfAbsent({ ...keys.organization(org.id), entity: 'organization', schemaVersion: 1, ...org });
}

export async function ensureUser(user: UserProfile): Promise<boolean> {
  return putIfAbsent({
    ...keys.principalProfile(user.organizationId, user.id),
    ...keys.userByEmail(user.organizationId, user.email),
    ...keys.usersIndex(user.organizationId),
    gsi2sk: user.id,
    entity: 'user',
    schemaVersion: 1,
    ...user,
  });
}

export interface TeamRecord {
  id: string;
  organizationId: string;
  name: string;
  createdAt: string;
}

export async function ensureTeam(team: TeamRecord): Promise<boolean> {
  return putIfAbsent({
    ...keys.team(team.organizationId, team.id),
    ...keys.teamByName(team.organizationId, team.name),
    entity: 'team',
    schemaVersion: 1,
    ...team,
  });
}

/** Adds a member: the team's member item and the principal's mirror, in one transaction. */
export async function addTeamMember(
  orgId: string,
  teamId: string,
  principalId: string,
  email?: string,
): Promise<void> {
  const addedAt = new Date().toISOString();
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.teamMember(orgId, teamId, principalId),
              entity: 'teamMember',
              schemaVersion: 1,
              teamId,
              userId: principalId,
              ...(email ? { email } : {}),
              addedAt,
            },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.principalTeam(orgId, principalId, teamId),
              entity: 'membership',
              schemaVersion: 1,
              teamId,
              addedAt,
            },
          },
        },
      ],
    }),
  );
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
 * Mints an API key and stores only its hash: the global lookup item (for the authorizer) and
 * the principal-partition mirror (for per-request revocation checks and listing), in one transaction.
 */
export async function createApiKey(
  orgId: string,
  principalId: string,
  kind: 'user' | 'org',
  name: string,
  createdById: string,
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const id = newId('key');
  const createdAt = new Date().toISOString();
  const prefix = apiKeyPrefix(key);
  const hash = hashApiKey(key);
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.apiKeyLookup(hash),
              entity: 'apiKeyLookup',
              schemaVersion: 1,
              keyId: id,
              orgId,
              principalId,
              kind,
              createdAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.principalKey(orgId, principalId, id),
              ...keys.apiKeysIndex(orgId, `${createdAt}#${id}`),
              entity: 'apiKey',
              schemaVersion: 1,
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
          },
        },
      ],
    }),
  );
  return { id, key, prefix, name, principalId, kind, createdAt };
}
