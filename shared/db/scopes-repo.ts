import type { Scope } from '../model/scopes';
import { defineEntity } from './entity';
import { keys } from './keys';
import { type Page, queryListing } from './page';

const scopes = defineEntity<Scope>({
  name: 'scope',
  schemaVersion: 1,
  key: (scope) => keys.scope(scope.organizationId, scope.id),
});

export async function getScope(orgId: string, scopeId: string): Promise<Scope | undefined> {
  return scopes.get(keys.scope(orgId, scopeId));
}

export async function insertScope(scope: Scope): Promise<void> {
  await scopes.insert(scope);
}

/** Replaces a scope if the stored version is still `expectedVersion` (409 VERSION_CONFLICT otherwise). */
export async function replaceScope(scope: Scope, expectedVersion: number): Promise<void> {
  await scopes.replace(scope, expectedVersion);
}

export async function deleteScope(orgId: string, scopeId: string): Promise<void> {
  await scopes.remove(keys.scope(orgId, scopeId));
}

export async function listScopes(orgId: string, limit: number, cursor?: string): Promise<Page<Scope>> {
  return queryListing(keys.scopesListing(orgId), { limit, cursor }, scopes.read);
}
