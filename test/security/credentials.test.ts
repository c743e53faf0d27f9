import { createHmac } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, loadOrCreateSigningKey } from '../../infra/local/idp';
import { generateApiKey } from '../../shared/auth/api-key-format';
import { resetJwtVerifier, verifyCredential } from '../../shared/auth/credentials';
import { UnauthorizedError } from '../../shared/errors';
import { routes } from '../../shared/routes';
import { api, session } from '../support/session';
import { startTestIdp } from '../support/test-idp';

/**
 * Credentials, route by route of the manifest (a route added later is covered without a change
 * here): every refusal is the same `401 {"error":"Unauthorized"}`, a missing header included, since
 * the routes verify credentials themselves (docs/security.md). Then the JWT rejection matrix and
 * the API-key refusals, compared byte for byte, and a JWKS endpoint that hangs.
 */

const UNAUTHORIZED = '{"error":"Unauthorized"}';

/** A request to a route with made-up path values and, for a route that takes a body, an empty object. */
async function raw(method: string, path: string, headers: Record<string, string>) {
  const hasBody = method !== 'GET' && method !== 'DELETE';
  const res = await fetch(`${session().baseUrl}${path.replace(/\{[^}]+\}/g, 'probe_1')}`, {
    method,
    headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { body: '{}' } : {}),
  });
  return { status: res.status, text: await res.text() };
}

describe('every manifest route refuses a missing or bad credential with the same 401 {error}', () => {
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_key, def) => {
    const refusals: Record<string, string>[] = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer ak_not_a_key' },
      { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' },
    ];
    for (const headers of refusals) {
      expect({ headers, ...(await raw(def.method, def.path, headers)) }).toEqual({
        headers,
        status: 401,
        text: UNAUTHORIZED,
      });
    }
  });
});

describe('JWT rejection', () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  let valid: string;
  let forge: (claims?: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string>;

  beforeAll(async () => {
    const key = await loadOrCreateSigningKey(session().stateDir);
    const privateKey = await importJWK(key.privateJwk, 'RS256');
    forge = async (claims = {}, header = {}) => {
      const now = Math.floor(Date.now() / 1000);
      const payload: Record<string, unknown> = {
        sub: session().users.admin,
        org_id: session().orgId,
        iss: LOCAL_ISSUER,
        aud: LOCAL_AUDIENCE,
        iat: now,
        exp: now + 600,
        ...claims,
      };
      for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid: key.privateJwk.kid as string, typ: 'JWT', ...header })
        .sign(privateKey);
    };
    valid = await forge();
  });

  const get = (token: string) => raw('GET', '/reports', { authorization: `Bearer ${token}` });

  it('accepts the control token (so each refusal below is about the one thing changed)', async () => {
    expect((await get(valid)).status).toBe(200);
  });

  it.each([
    ['alg none', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${valid.split('.')[1]}.`],
    [
      'HS256 signed with the public key as the secret',
      async () => {
        const { publicJwk } = await loadOrCreateSigningKey(session().stateDir);
        const head = `${b64({ alg: 'HS256', kid: publicJwk.kid, typ: 'JWT' })}.${valid.split('.')[1]}`;
        const mac = createHmac('sha256', JSON.stringify(publicJwk)).update(head).digest('base64url');
        return `${head}.${mac}`;
      },
    ],
    ['a wrong issuer', () => forge({ iss: 'https://evil.example/' })],
    ['a wrong audience', () => forge({ aud: 'someone-else' })],
    ['an expired token', () => forge({ iat: 1_000, exp: 2_000 })],
    ['nbf in the future', () => forge({ nbf: Math.floor(Date.now() / 1000) + 3600 })],
    ['an unknown kid', () => forge({}, { kid: 'not-a-key' })],
    [
      'a tampered signature',
      async () => {
        const [h, p, s] = valid.split('.') as [string, string, string];
        return `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
      },
    ],
    [
      'a tampered payload (another organisation)',
      async () => {
        const [h, , s] = valid.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(valid.split('.')[1] as string, 'base64url').toString());
        return `${h}.${b64({ ...claims, org_id: session().otherOrgId })}.${s}`;
      },
    ],
    ['no exp', () => forge({ exp: undefined })],
    ['no sub', () => forge({ sub: undefined })],
    ['no organisation claim', () => forge({ org_id: undefined })],
  ])('refuses %s with the same 401 body', async (_label, make) => {
    expect(await get(await make())).toEqual({ status: 401, text: UNAUTHORIZED });
  });
});

describe('API keys', () => {
  it('unknown, revoked and malformed keys get byte-identical 401 bodies', async () => {
    const admin = session().apiKeys.admin;
    const created = await api<{ id: string; key: string }>('POST', '/api-keys', {
      token: admin,
      body: { name: 'to revoke' },
    });
    expect(created.status).toBe(201);
    expect((await raw('GET', '/reports', { authorization: `Bearer ${created.body.key}` })).status).toBe(200);
    expect((await api('DELETE', `/api-keys/${created.body.id}`, { token: admin })).status).toBe(200);
    const real = created.body.key;
    const unknown = generateApiKey(); // well formed (valid checksum), never stored
    const answers = [];
    for (const key of [real, unknown, 'ak_short', `${real}x`, real.toUpperCase(), 'ak_']) {
      answers.push({ key, ...(await raw('GET', '/reports', { authorization: `Bearer ${key}` })) });
    }
    for (const a of answers) expect(a).toEqual({ key: a.key, status: 401, text: UNAUTHORIZED });
  });
});

describe('a JWKS endpoint that never answers', () => {
  it('fails closed: the credential is refused, the request does not hang', async () => {
    const idp = await startTestIdp();
    try {
      idp.use();
      const token = await idp.token();
      idp.hang = true;
      const refused = verifyCredential(`Bearer ${token}`, {
        findByHash: async () => undefined,
        recordUse: async () => undefined,
      });
      await expect(refused).rejects.toBeInstanceOf(UnauthorizedError);
      // Once it answers again, the same token is accepted: the refusal was the outage, not the token.
      idp.hang = false;
      resetJwtVerifier();
      await expect(
        verifyCredential(`Bearer ${token}`, {
          findByHash: async () => undefined,
          recordUse: async () => undefined,
        }),
      ).resolves.toMatchObject({ orgId: 'org_test', principalId: 'user_test', credential: 'jwt' });
    } finally {
      await idp.close();
    }
  });
});
