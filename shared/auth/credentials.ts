import { JwtVerifier } from 'aws-jwt-verify';
import { config } from '../config';
import { findApiKeyByHash } from '../db/principals-repo';
import { UnauthorizedError } from '../errors';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';
import type { AuthContext } from './principal';

type Verifier = { verify: (token: string) => Promise<Record<string, unknown>> };
let verifier: Verifier | undefined;

function jwtVerifier(): Verifier {
  if (!verifier) {
    const { issuer, audience, jwksUri } = config().jwt;
    verifier = JwtVerifier.create({ issuer, audience, jwksUri }) as unknown as Verifier;
  }
  return verifier;
}

/** For tests and the local runtime, which change the IdP settings after import. */
export function resetJwtVerifier(): void {
  verifier = undefined;
}

const ORG_ID = /^org_[A-Za-z0-9_-]{1,64}$/;
const USER_ID = /^user_[A-Za-z0-9_-]{1,64}$/;

/**
 * Verifies `Authorization: Bearer <credential>` and says whose it is. Every failure, whatever its
 * cause, is the same UnauthorizedError, so responses never tell a revoked key from a made-up one.
 */
export async function verifyCredential(authorization: string | undefined): Promise<AuthContext> {
  const match = /^Bearer ([^\s]+)$/.exec(authorization?.trim() ?? '');
  const credential = match?.[1];
  if (!credential) throw new UnauthorizedError();
  try {
    return credential.startsWith('ak_') ? await verifyApiKey(credential) : await verifyJwt(credential);
  } catch {
    throw new UnauthorizedError();
  }
}

async function verifyApiKey(key: string): Promise<AuthContext> {
  if (!isWellFormedApiKey(key)) throw new UnauthorizedError();
  const found = await findApiKeyByHash(hashApiKey(key));
  if (!found || found.revokedAt) throw new UnauthorizedError();
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
  if (typeof orgId !== 'string' || !ORG_ID.test(orgId)) throw new UnauthorizedError();
  if (typeof sub !== 'string' || !USER_ID.test(sub)) throw new UnauthorizedError();
  const role = payload[roleClaim];
  return {
    orgId,
    principalId: sub,
    kind: 'user',
    credential: 'jwt',
    ...(typeof role === 'string' ? { claimRole: role } : {}),
  };
}
