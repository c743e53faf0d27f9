import { type ApiKeyStore, verifyCredential } from '../auth/credentials';
import { type AuthContext, type Principal, principalOf } from '../auth/principal';
import { type OrganizationRegistry, registerOnFirstAdmin } from '../auth/registration';
import { recordApiKeyUse } from '../db/api-keys-repo';
import { registerOrganization } from '../db/organizations-repo';
import { findApiKeyByHash, readPrincipalRecords } from '../db/principals-repo';
import { UnauthorizedError } from '../errors';
import { log } from '../log';
import type { HttpEvent } from './event';

/**
 * Who is calling: auth's rules (../auth, which touch no storage) fed with the table's reads
 * (../db). The authorizer proves a credential once (`authenticate`, cached by API Gateway per
 * Authorization header); every request reads back what it proved (`authContextOf`) and loads
 * what may have changed since (`loadPrincipal`).
 */

const apiKeys: ApiKeyStore = { findByHash: findApiKeyByHash, recordUse: recordApiKeyUse };

/** An organisation registered by its first admin sign-in: named after its id, in UTC, until changed. */
const organizations: OrganizationRegistry = {
  register: (orgId, registeredBy) =>
    registerOrganization({
      id: orgId,
      name: orgId,
      timezone: 'UTC',
      createdAt: new Date().toISOString(),
      registeredVia: 'jwt',
      registeredBy,
    }),
};

/**
 * Verifies `Authorization: Bearer <credential>`; any failure is the same UnauthorizedError. An
 * org admin's session JWT also registers its organisation the first time (see ../auth/registration);
 * that write never fails the sign-in: on an error it is logged and tried again on the next one.
 */
export async function authenticate(authorization: string | undefined): Promise<AuthContext> {
  const auth = await verifyCredential(authorization, apiKeys);
  try {
    if (await registerOnFirstAdmin(auth, organizations)) {
      log.info('organisation registered by its first admin sign-in', {
        orgId: auth.orgId,
        principalId: auth.principalId,
      });
    }
  } catch (error) {
    log.warn('registering the organisation of an admin sign-in failed; retried on the next one', {
      orgId: auth.orgId,
      error,
    });
  }
  return auth;
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
