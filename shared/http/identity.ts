import { type ApiKeyStore, verifyCredential } from '../auth/credentials';
import { type AuthContext, type Principal, principalOf } from '../auth/principal';
import { recordApiKeyUse } from '../db/api-keys-repo';
import { findApiKeyByHash, readPrincipalRecords } from '../db/principals-repo';
import { UnauthorizedError } from '../errors';
import type { HttpEvent } from './event';

/**
 * Who is calling: auth's rules (../auth, which touch no storage) fed with the table's reads
 * (../db). The authorizer proves a credential once (`authenticate`, cached by API Gateway per
 * Authorization header); every request reads back what it proved (`authContextOf`) and loads
 * what may have changed since (`loadPrincipal`).
 */

const apiKeys: ApiKeyStore = { findByHash: findApiKeyByHash, recordUse: recordApiKeyUse };

/** Verifies `Authorization: Bearer <credential>`; any failure is the same UnauthorizedError. */
export function authenticate(authorization: string | undefined): Promise<AuthContext> {
  return verifyCredential(authorization, apiKeys);
}

/** The caller as of now: role, teams and key revocation read with one strongly consistent query. */
export async function loadPrincipal(auth: AuthContext): Promise<Principal> {
  return principalOf(auth, await readPrincipalRecords(auth.orgId, auth.principalId, auth.keyId));
}

/** Reads the authorizer's context back into an AuthContext; anything malformed is a 401. */
export function authContextOf(event: HttpEvent): AuthContext {
  const ctx = event.requestContext.authorizer?.lambda;
  if (ctx?.authenticated !== 'true') throw new UnauthorizedError();
  const orgId = ctx?.orgId;
  const principalId = ctx?.principalId;
  const kind = ctx?.kind;
  const credential = ctx?.credential;
  if (typeof orgId !== 'string' || typeof principalId !== 'string') throw new UnauthorizedError();
  if ((kind !== 'user' && kind !== 'org') || (credential !== 'jwt' && credential !== 'apikey')) {
    throw new UnauthorizedError();
  }
  return {
    orgId,
    principalId,
    kind,
    credential,
    ...(typeof ctx?.keyId === 'string' && ctx.keyId ? { keyId: ctx.keyId } : {}),
    ...(typeof ctx?.claimRole === 'string' && ctx.claimRole ? { claimRole: ctx.claimRole } : {}),
  };
}
