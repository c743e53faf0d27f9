import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { defineEntity } from './entity';
import { batchGetItems, queryExact } from './items';
import { keys } from './keys';
import { type Page, queryPage } from './page';

/** Users of an organisation: profiles in the principal partition, found by id, e-mail (GSI1) or listed (GSI2). */

export interface UserProfile {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  createdAt: string;
}

export type User = UserProfile & { updatedAt?: string; disabledAt?: string | null };

/** A profile: indexed by e-mail (GSI1, only once it has one) and in the org's users list (GSI2, by id). */
const users = defineEntity<UserProfile>({
  name: 'user',
  schemaVersion: 1,
  key: (user) => keys.principalProfile(user.organizationId, user.id),
  indexes: (user) => ({
    ...(user.email ? keys.userByEmail(user.organizationId, user.email) : {}),
    ...keys.usersIndex(user.organizationId),
    gsi2sk: user.id,
  }),
});
const fromItem = (item: Record<string, unknown>): User => users.read(item) as User;

/** One user, strongly consistent. Another organisation's user is not found. */
export async function getUser(orgId: string, userId: string): Promise<User | undefined> {
  return users.get(keys.principalProfile(orgId, userId));
}

/** Writes a profile unless the user exists (the local seed); answers whether it wrote. */
export async function ensureUser(user: UserProfile): Promise<boolean> {
  return users.insertIfAbsent(user);
}

/**
 * Registers the profile of a signed-in user who has none yet (`POST /api-keys`), unless one exists
 * (conditional, so concurrent first keys write once); answers whether it wrote. The identity
 * provider's token carries no e-mail we rely on, so the profile has none (`""`, not indexed for
 * e-mail look-ups) until `PUT /iac/users/{id}` sets it.
 */
export async function registerSignedInUser(
  orgId: string,
  user: { id: string; role: 'admin' | 'member' },
  at: string,
): Promise<boolean> {
  return users.insertIfAbsent({
    id: user.id,
    organizationId: orgId,
    email: '',
    name: '',
    role: user.role,
    createdAt: at,
  });
}

/** Many users by id (BatchGet, 100 per call, unprocessed keys retried). Unknown ids are absent from the map. */
export async function getUsers(orgId: string, userIds: readonly string[]): Promise<Map<string, User>> {
  const items = await batchGetItems(userIds.map((id) => keys.principalProfile(orgId, id)));
  return new Map(items.map((item) => [String(item.id), fromItem(item)]));
}

/**
 * Users whose e-mail is `email` (case-insensitive), via GSI1. Normally zero or one; more than one
 * only if two profiles were written with the same address, which callers treat as ambiguous.
 * GSI reads are eventually consistent: a user registered a moment ago may not be found yet.
 */
export async function findUsersByEmail(orgId: string, email: string): Promise<User[]> {
  return queryExact(keys.userByEmail(orgId, email), fromItem, 10);
}

/** Users of an organisation ordered by id (GSI2). */
export async function listUsers(orgId: string, limit: number, cursor?: string): Promise<Page<User>> {
  return queryPage({
    partition: { attribute: 'gsi2pk', value: keys.usersIndex(orgId).gsi2pk },
    limit,
    cursor,
    map: fromItem,
  });
}

/**
 * Creates or updates a user profile (e-mail, name, role); `createdAt` is kept from the first write.
 * An undefined `name` or `role` keeps the stored value, or is `""` / `member` for a new user.
 * The role is read on every request by `loadPrincipal`, so a change applies to the next request.
 */
export async function upsertUser(
  orgId: string,
  user: { id: string; email: string; name?: string | undefined; role?: 'admin' | 'member' | undefined },
  at: string,
): Promise<User> {
  const name = user.name === undefined ? 'if_not_exists(#name, :name)' : ':name';
  const role = user.role === undefined ? 'if_not_exists(#role, :role)' : ':role';
  const res = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.principalProfile(orgId, user.id),
      UpdateExpression:
        `SET ${users.envelopeSet.expression}, id = :id, organizationId = :org, email = :email, #name = ${name}, #role = ${role}, ` +
        'gsi1pk = :g1pk, gsi1sk = :g1sk, gsi2pk = :g2pk, gsi2sk = :id, createdAt = if_not_exists(createdAt, :at), updatedAt = :at',
      ExpressionAttributeNames: { '#name': 'name', '#role': 'role' },
      ExpressionAttributeValues: {
        ...users.envelopeSet.values,
        ':id': user.id,
        ':org': orgId,
        ':email': user.email,
        ':name': user.name ?? '',
        ':role': user.role ?? 'member',
        ':g1pk': keys.userByEmail(orgId, user.email).gsi1pk,
        ':g1sk': keys.userByEmail(orgId, user.email).gsi1sk,
        ':g2pk': keys.usersIndex(orgId).gsi2pk,
        ':at': at,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return fromItem(res.Attributes ?? {});
}
