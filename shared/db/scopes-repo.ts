import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '../domain/scopes/model';
import { db, tableName } from './client';
import { getItem } from './items';
import { keys, stripKeys } from './keys';
import { type Page, queryListing } from './page';
import { ifConditionFails, insertNew, notFound, replaceVersioned } from './writes';

const fromItem = (item: Record<string, unknown>): Scope => stripKeys(item) as unknown as Scope;

const toItem = (scope: Scope) => ({
  ...keys.scope(scope.organizationId, scope.id),
  entity: 'scope',
  schemaVersion: 1,
  ...scope,
});

export async function getScope(orgId: string, scopeId: string): Promise<Scope | undefined> {
  return getItem(keys.scope(orgId, scopeId), fromItem, { consistent: true });
}

export async function insertScope(scope: Scope): Promise<void> {
  await insertNew(toItem(scope));
}

/** Replaces a scope if the stored version is still `expectedVersion` (409 VERSION_CONFLICT otherwise). */
export async function replaceScope(scope: Scope, expectedVersion: number): Promise<void> {
  await replaceVersioned(toItem(scope), expectedVersion);
}

export async function deleteScope(orgId: string, scopeId: string): Promise<void> {
  await ifConditionFails(
    db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.scope(orgId, scopeId),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
    notFound,
  );
}

export async function listScopes(orgId: string, limit: number, cursor?: string): Promise<Page<Scope>> {
  return queryListing(keys.scopesListing(orgId), { limit, cursor }, fromItem);
}
