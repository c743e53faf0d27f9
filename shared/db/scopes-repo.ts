import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '../domain/scopes/model';
import { NotFoundError } from '../errors';
import { db, isConditionalCheckFailed, tableName } from './client';
import { keys, stripKeys } from './keys';
import { queryPage } from './page';
import { insertNew, replaceVersioned } from './writes';

const fromItem = (item: Record<string, unknown>): Scope => stripKeys(item) as unknown as Scope;

const toItem = (scope: Scope) => ({
  ...keys.scope(scope.organizationId, scope.id),
  entity: 'scope',
  schemaVersion: 1,
  ...scope,
});

export async function getScope(orgId: string, scopeId: string): Promise<Scope | undefined> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.scope(orgId, scopeId), ConsistentRead: true }),
  );
  return res.Item ? fromItem(res.Item) : undefined;
}

export async function insertScope(scope: Scope): Promise<void> {
  await insertNew(toItem(scope));
}

/** Replaces a scope if the stored version is still `expectedVersion` (409 VERSION_CONFLICT otherwise). */
export async function replaceScope(scope: Scope, expectedVersion: number): Promise<void> {
  await replaceVersioned(toItem(scope), expectedVersion);
}

export async function deleteScope(orgId: string, scopeId: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.scope(orgId, scopeId),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new NotFoundError('NOT_FOUND');
    throw error;
  }
}

export interface ScopePage {
  items: Scope[];
  nextCursor: string | null;
}

export async function listScopes(orgId: string, limit: number, cursor?: string): Promise<ScopePage> {
  const listing = keys.scopesListing(orgId);
  return queryPage({
    partition: { attribute: 'pk', value: listing.pk },
    skPrefix: listing.skPrefix,
    limit,
    cursor,
    map: fromItem,
  });
}
