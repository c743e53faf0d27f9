import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { resetJwtVerifier } from '../../shared/auth/credentials';
import { resetConfig } from '../../shared/config';

/**
 * A throwaway identity provider for tests that call route handlers in-process: an RS256 key pair,
 * its JWKS served on a loopback port, and `token()` to mint what a test needs (valid or not).
 * `use()` points this process's configuration (issuer, audience, JWKS URL) at it. It also answers
 * token introspection (RFC 7662) at `/introspect` for the API keys a test registers with
 * `introspection.answers` (key → the JSON answer; unknown keys are `{active: false}`).
 */
export interface TestIdp {
  issuer: string;
  audience: string;
  jwksUrl: string;
  kid: string;
  /** A signed RS256 token: `sub`, org claim, iss, aud, iat and a 1-hour exp unless overridden. */
  token(claims?: JWTPayload & Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** While true, the JWKS endpoint accepts connections and never answers (a hung IdP). */
  hang: boolean;
  /** Token introspection: the answers it gives, how it answers, and what it was asked. */
  introspection: {
    url: string;
    answers: Map<string, Record<string, unknown>>;
    /** Answer with this status (and no JSON) instead, e.g. 503 or a 302 to `location`. */
    fail?: { status: number; location?: string };
    /** Each call: the token asked about and the Authorization header sent. */
    calls: { token: string; authorization: string | undefined }[];
  };
  /** Sets JWT_ISSUER, JWT_AUDIENCE and JWKS_URI and drops the cached config and verifier. */
  use(): void;
  close(): Promise<void>;
}

export async function startTestIdp(): Promise<TestIdp> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = `test-${randomUUID().slice(0, 8)}`;
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] };
  const state = { hang: false };
  const introspection: TestIdp['introspection'] = { url: '', answers: new Map(), calls: [] };
  const server: Server = createServer((req, res) => {
    if (state.hang) return; // never answers
    if (req.url === '/introspect' && req.method === 'POST') {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString('utf8');
      });
      req.on('end', () => {
        const token = new URLSearchParams(raw).get('token') ?? '';
        introspection.calls.push({ token, authorization: req.headers.authorization });
        const fail = introspection.fail;
        if (fail) {
          res.writeHead(fail.status, fail.location ? { location: fail.location } : {}).end();
          return;
        }
        const answer = introspection.answers.get(token) ?? { active: false };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
      return;
    }
    if (req.url !== '/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  introspection.url = `http://127.0.0.1:${port}/introspect`;
  const issuer = `urn:test-idp:${kid}`;
  const audience = 'cost-management-test';
  const idp: TestIdp = {
    issuer,
    audience,
    jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
    kid,
    introspection,
    get hang() {
      return state.hang;
    },
    set hang(value: boolean) {
      state.hang = value;
    },
    async token(claims = {}, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload = {
        sub: 'user_test',
        org_id: 'org_test',
        iss: issuer,
        aud: audience,
        iat: now,
        exp: now + 3600,
        ...claims,
      };
      for (const [k, v] of Object.entries(payload))
        if (v === undefined) delete (payload as Record<string, unknown>)[k];
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT', ...header })
        .sign(privateKey);
    },
    use() {
      process.env.JWT_ISSUER = issuer;
      process.env.JWT_AUDIENCE = audience;
      process.env.JWKS_URI = idp.jwksUrl;
      resetConfig();
      resetJwtVerifier();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return idp;
}
