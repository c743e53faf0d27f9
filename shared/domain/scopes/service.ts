import type { Principal } from '../../auth/principal';
import * as scopesRepo from '../../db/scopes-repo';
import { getTeam } from '../../db/teams-repo';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors';
import { newId } from '../../ids';
import type { Scope } from '../../model/scopes';
import { canUseScope, parseScopeIfMatch } from './rules';
import type { CreateScopeInput, PatchScopeInput } from './schemas';

/**
 * For other areas (dashboards, alerts): validates a `scopeId` assignment against the caller's
 * membership. Unknown scope: `VALIDATION_ERROR` for admins (a typo) and `FORBIDDEN` for members
 * (who must not learn which scope ids exist); a scope of teams the caller is not in: `FORBIDDEN`.
 */
export async function assertScopeAssignable(
  principal: Principal,
  scopeId: string | null | undefined,
): Promise<void> {
  if (!scopeId) return;
  const scope = await scopesRepo.getScope(principal.orgId, scopeId);
  if (!scope) {
    if (principal.kind === 'org' || principal.role === 'admin')
      throw new ValidationError(`scopeId: unknown scope ${scopeId}`, [
        { path: 'scopeId', message: 'unknown scope' },
      ]);
    throw new ForbiddenError('FORBIDDEN');
  }
  if (!canUseScope(principal, scope)) throw new ForbiddenError('FORBIDDEN');
}

async function assertTeamsExist(orgId: string, teamIds: readonly string[]): Promise<void> {
  const unique = [...new Set(teamIds)];
  const found = await Promise.all(unique.map((id) => getTeam(orgId, id)));
  const issues = unique.flatMap((id, i) =>
    found[i] && !found[i]?.deletingAt
      ? []
      : [{ path: `teamIds.${teamIds.indexOf(id)}`, message: `unknown team ${id}` }],
  );
  if (issues.length > 0) throw new ValidationError(`${issues[0]?.path}: ${issues[0]?.message}`, issues);
}

export async function createScope(principal: Principal, input: CreateScopeInput): Promise<Scope> {
  await assertTeamsExist(principal.orgId, input.teamIds);
  const at = new Date().toISOString();
  const scope: Scope = {
    id: newId('scope'),
    organizationId: principal.orgId,
    name: input.name,
    description: input.description,
    teamIds: [...new Set(input.teamIds)],
    filters: input.filters,
    createdById: principal.principalId,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  await scopesRepo.insertScope(scope);
  return scope;
}

/** A scope the caller may use; others (and other organisations') are NOT_FOUND. */
export async function readScope(principal: Principal, scopeId: string): Promise<Scope> {
  const scope = await scopesRepo.getScope(principal.orgId, scopeId);
  if (!scope || !canUseScope(principal, scope)) throw new NotFoundError('NOT_FOUND');
  return scope;
}

/** The scopes the caller may use (all for admins). Filtering follows the page read. */
export async function listScopes(
  principal: Principal,
  opts: { limit: number; cursor?: string },
): Promise<{ items: Scope[]; nextCursor: string | null }> {
  const page = await scopesRepo.listScopes(principal.orgId, opts.limit, opts.cursor);
  return { items: page.items.filter((s) => canUseScope(principal, s)), nextCursor: page.nextCursor };
}

/**
 * Changes the fields sent. The write is conditional on the version read; with `If-Match` (the
 * version from a read's `ETag` or `version`) a scope changed since then is a 409 `VERSION_CONFLICT`.
 */
export async function patchScope(
  principal: Principal,
  scopeId: string,
  input: PatchScopeInput,
  ifMatch?: string,
): Promise<Scope> {
  const expected = parseScopeIfMatch(ifMatch);
  const current = await scopesRepo.getScope(principal.orgId, scopeId);
  if (!current) throw new NotFoundError('NOT_FOUND');
  if (expected !== undefined && expected !== current.version) throw new ConflictError('VERSION_CONFLICT');
  if (input.teamIds) await assertTeamsExist(principal.orgId, input.teamIds);
  const next: Scope = {
    ...current,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.teamIds !== undefined ? { teamIds: [...new Set(input.teamIds)] } : {}),
    ...(input.filters !== undefined ? { filters: input.filters } : {}),
    updatedAt: new Date().toISOString(),
    version: current.version + 1,
  };
  await scopesRepo.replaceScope(next, current.version);
  return next;
}

export async function deleteScope(
  principal: Principal,
  scopeId: string,
): Promise<{ id: string; deleted: true }> {
  await scopesRepo.deleteScope(principal.orgId, scopeId);
  return { id: scopeId, deleted: true };
}
