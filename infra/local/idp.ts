import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';

/**
 * The local identity provider: an RS256 key pair kept in the state folder, its JWKS served by
 * the local server, and token minting for `npm run token` and the tests. In AWS the IdP is
 * external and only its issuer, audience and JWKS URL are configured.
 */
export const LOCAL_ISSUER = 'urn:cost-management:local-idp';
export const LOCAL_AUDIENCE = 'cost-management-local';
const KID = 'local-1';

export interface StoredKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function loadOrCreateSigningKey(stateDir: string): Promise<StoredKey> {
  const file = join(stateDir, 'idp-key.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as StoredKey;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const stored: StoredKey = {
    privateJwk: { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' },
  };
  writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
  return stored;
}

export function jwks(key: StoredKey): { keys: JWK[] } {
  return { keys: [key.publicJwk] };
}

export interface MintOptions {
  userId: string;
  orgId: string;
  role?: string;
  expiresInSeconds?: number;
  email?: string;
  /** The audience (default: the local API's); an ID token's is the client's id. */
  audience?: string;
  /** An ID token's `nonce`, echoed from the authorization request. */
  nonce?: string;
}

export async function mintToken(key: StoredKey, opts: MintOptions): Promise<string> {
  const privateKey = await importJWK(key.privateJwk, 'RS256');
  const jwt = new SignJWT({
    org_id: opts.orgId,
    ...(opts.role ? { org_role: opts.role } : {}),
    ...(opts.email ? { email: opts.email } : {}),
    ...(opts.nonce ? { nonce: opts.nonce } : {}),
  })
    .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
    .setSubject(opts.userId)
    .setIssuer(LOCAL_ISSUER)
    .setAudience(opts.audience ?? LOCAL_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${opts.expiresInSeconds ?? 3600}s`);
  return jwt.sign(privateKey);
}
