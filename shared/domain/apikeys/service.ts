import { isAdmin, type Principal } from '../../auth/principal';
import * as keysRepo from '../../db/api-keys-repo';
import { organizationExists } from '../../db/organizations-repo';
import { getUser, registerSignedInUser } from '../../db/users-repo';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../errors';
import { createApiKey as mintApiKey } from './mint';
import type { CreateApiKeyInput } from './schemas';

/** Most active (unrevoked) keys one principal may hold. */
export const MAX_ACTIVE_KEYS_PER_PRINCIPAL = 25;

export type ApiKeyView = keysRepo.ApiKeyRecord;

/**
 * `POST /api-keys`: a key for the caller, or for admins with `kind: 'org'` a key of the
 * organisation principal (`principalId` = the org id). The raw key is in this answer only; the
 * table keeps its SHA-256 hash. A user key needs a stored user profile (keys authenticate without
 * the identity provider, so the role must come from the profile): a signed-in user of a registered
 * organisation who has none yet gets one here, with the role the session has now (its token's
 * claim). An organisation nobody registered yet gets no keys (409 ORGANIZATION_NOT_REGISTERED).
 */
export async function createKey(
  principal: Principal,
  input: CreateApiKeyInput,
): Promise<ApiKeyView & { key: string }> {
  const kind = input.kind ?? principal.kind;
  if (kind === 'org' && !isAdmin(principal)) throw new ForbiddenError('FORBIDDEN');
  if (kind === 'user' && principal.kind === 'org')
    throw new BadRequestError('An organisation principal has no user keys: use kind org');
  const ownerId = kind === 'org' ? principal.orgId : principal.principalId;
  if (kind === 'user' && !(await getUser(principal.orgId, ownerId))) {
    if (!(await organizationExists(principal.orgId))) throw new ConflictError('ORGANIZATION_NOT_REGISTERED');
    await registerSignedInUser(
      principal.orgId,
      { id: ownerId, role: principal.role },
      new Date().toISOString(),
    );
  }
  const active = (await keysRepo.listPrincipalKeys(principal.orgId, ownerId)).filter((k) => !k.revokedAt);
  if (active.length >= MAX_ACTIVE_KEYS_PER_PRINCIPAL) throw new ConflictError('TOO_MANY_API_KEYS');
  const created = await mintApiKey(principal.orgId, ownerId, kind, input.name, principal.principalId);
  return {
    id: created.id,
    key: created.key,
    name: created.name,
    prefix: created.prefix,
    kind: created.kind,
    principalId: created.principalId,
    createdById: principal.principalId,
    createdAt: created.createdAt,
    lastUsedAt: null,
    revokedAt: null,
  };
}

/**
 * `GET /api-keys`: admins list the organisation's keys (newest first, paginated; `mine=true` for
 * their own); members list their own. Never the key, never its hash.
 */
export async function listKeys(
  principal: Principal,
  opts: { limit: number; cursor?: string; mine: boolean },
): Promise<{ items: ApiKeyView[]; nextCursor: string | null }> {
  if (isAdmin(principal) && !opts.mine) {
    const page = await keysRepo.listOrgKeys(principal.orgId, opts.limit, opts.cursor);
    return { items: page.items.map(keysRepo.publicView), nextCursor: page.nextCursor };
  }
  const own = await keysRepo.listPrincipalKeys(principal.orgId, principal.principalId);
  return { items: own.map(keysRepo.publicView), nextCursor: null };
}

/**
 * `DELETE /api-keys/{id}`: revokes a key (the caller's own; admins any key of the org). Revoking a
 * revoked key answers it unchanged. The next request with the key gets 401.
 */
export async function revokeKey(principal: Principal, keyId: string): Promise<ApiKeyView> {
  let key = await keysRepo.getPrincipalKey(principal.orgId, principal.principalId, keyId);
  if (!key && isAdmin(principal)) key = await keysRepo.findOrgKey(principal.orgId, keyId);
  if (!key) throw new NotFoundError('NOT_FOUND');
  if (!key.revokedAt) await keysRepo.revokeApiKey(principal.orgId, key, new Date().toISOString());
  const after = await keysRepo.getPrincipalKey(principal.orgId, key.principalId, keyId);
  return keysRepo.publicView(after ?? key);
}
