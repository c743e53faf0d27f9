import { type ApiKeyLookup, type ApiKeyStore, verifyCredential } from '../auth/credentials';
import { createIntrospectionVerifier, type IdpKeyVerifier } from '../auth/idp-api-keys';
import { type AuthContext, type Principal, principalOf } from '../auth/principal';
import { type OrganizationRegistry, registerOnFirstAdmin } from '../auth/registration';
import { remember } from '../bounded-map';
import { readSecretString } from '../cloud/secrets';
import { config } from '../config';
import { recordApiKeyUse } from '../db/api-keys-repo';
import { registerOrganization } from '../db/organizations-repo';
import { findApiKeyByHash, readPrincipalRecords } from '../db/principals-repo';
import { log } from '../log';
import type { HttpEvent } from './event';

/**
 * Who is calling: auth's rules (../auth, which touch no storage) fed with the table's reads
 * (../db). Each route proves the request's credential itself, first thing (`authenticate`: a JWT
 * against the identity provider's JWKS, cached per container by aws-jwt-verify, or an `ak_` key by
 * its hash, or, not being ours, by the identity provider's introspection), then loads what may have changed since the credential was issued (`loadPrincipal`).
 * There is no gateway authorizer: every failure, a missing header included, is the route's own
 * `401 {error: "Unauthorized"}` (docs/security.md).
 */

/** How long a container keeps what an API key's hash resolved to (its org, principal and key id). */
export const API_KEY_CACHE_TTL_MS = 5 * 60 * 1000;
const API_KEY_CACHE_MAX = 1000;

/**
 * A key's identity never changes, and its revocation is read again on every request
 * (`loadPrincipal`), so a container may keep the hash → identity answer for a while: a warm
 * container then verifies a key with no read of its own. Unknown hashes are not kept.
 */
const apiKeyCache = new Map<string, { lookup: ApiKeyLookup; expires: number }>();

const apiKeys: ApiKeyStore = {
  async findByHash(hash) {
    const hit = apiKeyCache.get(hash);
    if (hit && hit.expires > Date.now()) return hit.lookup;
    const lookup = await findApiKeyByHash(hash);
    if (lookup && !lookup.revokedAt) {
      remember(apiKeyCache, hash, { lookup, expires: Date.now() + API_KEY_CACHE_TTL_MS }, API_KEY_CACHE_MAX);
    } else {
      apiKeyCache.delete(hash);
    }
    return lookup;
  },
  async recordUse(hash, key, now) {
    const result = await recordApiKeyUse(hash, key, now);
    // Whether this container or another one wrote it, the use is recorded as of now: the cached
    // copy must not make every later request try (and fail) the hourly write again.
    const hit = apiKeyCache.get(hash);
    if (hit) hit.lookup = { ...hit.lookup, lastUsedAt: now.toISOString() };
    return result;
  },
};

/**
 * The identity provider's API keys (../auth/idp-api-keys.ts), when `API_KEY_INTROSPECTION_URL` is
 * set: one verifier (and answer cache) per container, made on first use. Its client secret is the
 * configured value, or in AWS the Secrets Manager secret, read once per container (again after a
 * failed read).
 */
let idpKeys: { verifier: IdpKeyVerifier | undefined } | undefined;

function idpKeyVerifier(): IdpKeyVerifier | undefined {
  if (idpKeys) return idpKeys.verifier;
  const { apiKeyIntrospection, jwt } = config();
  if (!apiKeyIntrospection) {
    idpKeys = { verifier: undefined };
    return undefined;
  }
  let secret: Promise<string | undefined> | undefined;
  const readSecret = () => {
    const { secretArn, secret: value } = apiKeyIntrospection;
    if (!secretArn) return Promise.resolve(value);
    secret ??= readSecretString(secretArn).catch((error) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };
  idpKeys = {
    verifier: createIntrospectionVerifier({
      config: apiKeyIntrospection,
      claims: { orgClaim: jwt.orgClaim, roleClaim: jwt.roleClaim },
      secret: readSecret,
    }),
  };
  return idpKeys.verifier;
}

/** For tests: forget what this process has cached about API keys (ours and the identity provider's). */
export function resetApiKeyCache(): void {
  apiKeyCache.clear();
  idpKeys = undefined;
}

/** The `Authorization` header of a request (payload v2 lower-cases header names). */
export function authorizationOf(event: Pick<HttpEvent, 'headers'>): string | undefined {
  return event.headers?.authorization ?? event.headers?.Authorization;
}

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
  const auth = await verifyCredential(authorization, apiKeys, idpKeyVerifier());
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
