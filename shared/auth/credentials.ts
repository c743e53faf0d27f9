import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { config, isLoopbackHttpUrl } from '../config';
import { UnauthorizedError } from '../errors';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';
import type { IdpKeyVerifier } from './idp-api-keys';
import { type AuthContext, ORG_ID_PATTERN, USER_ID_PATTERN } from './principal';

/** The global lookup item of an API key, found by the key's hash. */
export interface ApiKeyLookup {
  keyId: string;
  orgId: string;
  principalId: string;
  kind: 'user' | 'org';
  revokedAt?: string | null;
  lastUsedAt?: string | null;
}

/**
 * The reads and the one write API-key verification needs, handed in by the caller (the table's
 * repositories, `shared/http/identity.ts`): the rules here stay free of storage.
 */
export interface ApiKeyStore {
  findByHash(hash: string): Promise<ApiKeyLookup | undefined>;
  /** Records that the key was used now; may skip the write (at most one per key and hour). */
  recordUse(hash: string, key: ApiKeyLookup, now: Date): Promise<unknown>;
}

type Verifier = { verify: (token: string) => Promise<Record<string, unknown>> };
let verifier: Verifier | undefined;

/**
 * aws-jwt-verify fetches JWKS over HTTPS only. The local IdP serves its JWKS over plain HTTP on
 * the loopback interface, so that one case gets a fetch-based fetcher; any other http:// URL is
 * left to the default fetcher, which refuses it.
 */
const loopbackFetcher = {
  fetch: async (uri: string): Promise<ArrayBuffer> => {
    const res = await fetch(uri, { signal: AbortSignal.timeout(3000) });
    if (res.status !== 200) throw new Error(`JWKS ${uri} answered ${res.status}`);
    return res.arrayBuffer();
  },
};

function jwtVerifier(): Verifier {
  if (!verifier) {
    const { issuer, audience, jwksUri } = config().jwt;
    const jwksCache = isLoopbackHttpUrl(jwksUri)
      ? new SimpleJwksCache({ fetcher: loopbackFetcher })
      : undefined;
    verifier = JwtVerifier.create(
      { issuer, audience, jwksUri },
      jwksCache ? { jwksCache } : undefined,
    ) as unknown as Verifier;
  }
  return verifier;
}

/** For tests and the local runtime, which change the IdP settings after import. */
export function resetJwtVerifier(): void {
  verifier = undefined;
}

/**
 * Verifies `Authorization: Bearer <credential>` and says whose it is. Every failure, whatever its
 * cause, is the same UnauthorizedError, so responses never tell a revoked key from a made-up one.
 * An `ak_` key that is not in our table goes to the identity provider (`idpKeys`) when one is
 * configured.
 */
export async function verifyCredential(
  authorization: string | undefined,
  apiKeys: ApiKeyStore,
  idpKeys?: IdpKeyVerifier,
): Promise<AuthContext> {
  // The scheme is case-insensitive (RFC 9110 §11.1); the credential itself is not.
  const match = /^Bearer +([^\s]+)$/i.exec(authorization?.trim() ?? '');
  const credential = match?.[1];
  if (!credential) throw new UnauthorizedError();
  try {
    return credential.startsWith('ak_')
      ? await verifyApiKey(credential, apiKeys, idpKeys)
      : await verifyJwt(credential);
  } catch {
    throw new UnauthorizedError();
  }
}

/**
 * One of our keys (well-formed, found by its hash; revoked: 401, never asked elsewhere), else the
 * identity provider's when one is configured (./idp-api-keys.ts), else 401.
 */
async function verifyApiKey(
  key: string,
  apiKeys: ApiKeyStore,
  idpKeys: IdpKeyVerifier | undefined,
): Promise<AuthContext> {
  const hash = isWellFormedApiKey(key) ? hashApiKey(key) : undefined;
  const found = hash ? await apiKeys.findByHash(hash) : undefined;
  if (!hash || !found) {
    if (!idpKeys) throw new UnauthorizedError();
    return idpKeys.verify(key);
  }
  if (found.revokedAt) throw new UnauthorizedError();
  // At most one write per key and hour; never fails the request.
  await apiKeys.recordUse(hash, found, new Date());
  return {
    orgId: found.orgId,
    principalId: found.principalId,
    kind: found.kind,
    credential: 'apikey',
    keyId: found.keyId,
  };
}

async function verifyJwt(token: string): Promise<AuthContext> {
  const payload = await jwtVerifier().verify(token);
  const { orgClaim, roleClaim } = config().jwt;
  const orgId = payload[orgClaim];
  const sub = payload.sub;
  if (typeof payload.exp !== 'number') throw new UnauthorizedError();
  if (typeof orgId !== 'string' || !ORG_ID_PATTERN.test(orgId)) throw new UnauthorizedError();
  if (typeof sub !== 'string' || !USER_ID_PATTERN.test(sub)) throw new UnauthorizedError();
  const role = payload[roleClaim];
  return {
    orgId,
    principalId: sub,
    kind: 'user',
    credential: 'jwt',
    ...(typeof role === 'string' ? { claimRole: role } : {}),
  };
}
