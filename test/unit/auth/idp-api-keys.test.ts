import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey } from '../../../shared/auth/api-key-format';
import { type ApiKeyLookup, type ApiKeyStore, verifyCredential } from '../../../shared/auth/credentials';
import {
  createIntrospectionVerifier,
  INACTIVE_ANSWER_TTL_MS,
  INTROSPECTION_TIMEOUT_MS,
  principalFromIntrospection,
} from '../../../shared/auth/idp-api-keys';
import { type ApiKeyIntrospectionConfig, loadConfig } from '../../../shared/config';
import { UnauthorizedError } from '../../../shared/errors';
import { startTestIdp, type TestIdp } from '../../support/test-idp';

/**
 * The identity provider's API keys, against a real introspection endpoint on a loopback port
 * (test/support/test-idp.ts): the principal rules of an answer, the client authentication, the
 * cache (answers kept briefly, failures never), and every failure a 401. Over HTTP on the stack:
 * test/e2e/idp-api-keys.test.ts.
 */

const claims = { orgClaim: 'org_id', roleClaim: 'org_role' };
const now = () => Math.floor(Date.now() / 1000);
const idpKey = () => `ak_${randomBytes(30).toString('base64url')}`;

describe('principalFromIntrospection: who an answer names', () => {
  const at = 1_800_000_000;
  it.each([
    [
      'a user of an organisation, with the role claim',
      { active: true, sub: 'user_a', org_id: 'org_a', org_role: 'org:admin' },
      { orgId: 'org_a', principalId: 'user_a', kind: 'user', credential: 'idpkey', claimRole: 'org:admin' },
    ],
    [
      'the organisation itself',
      { active: true, sub: 'org_a' },
      { orgId: 'org_a', principalId: 'org_a', kind: 'org', credential: 'idpkey' },
    ],
    [
      'the organisation, its org claim the same',
      { active: true, sub: 'org_a', org_id: 'org_a', exp: at + 1 },
      { orgId: 'org_a', principalId: 'org_a', kind: 'org', credential: 'idpkey' },
    ],
  ])('%s', (_label, answer, expected) => {
    expect(principalFromIntrospection(answer, claims, at)).toEqual(expected);
  });

  it.each([
    ['inactive', { active: false, sub: 'user_a', org_id: 'org_a' }],
    ['active not exactly true', { active: 'true', sub: 'user_a', org_id: 'org_a' }],
    ['expired', { active: true, sub: 'user_a', org_id: 'org_a', exp: at }],
    ['exp not a number', { active: true, sub: 'user_a', org_id: 'org_a', exp: '9999999999' }],
    ['not yet valid', { active: true, sub: 'user_a', org_id: 'org_a', nbf: at + 60 }],
    ['a user without an organisation', { active: true, sub: 'user_a' }],
    ['a user of a malformed organisation', { active: true, sub: 'user_a', org_id: 'acme' }],
    ['an organisation naming another one', { active: true, sub: 'org_a', org_id: 'org_b' }],
    ['a subject that is neither', { active: true, sub: 'client_42', org_id: 'org_a' }],
    ['no subject', { active: true, org_id: 'org_a' }],
    ['not an object', ['active']],
    ['null', null],
  ])('refuses %s', (_label, answer) => {
    expect(principalFromIntrospection(answer, claims, at)).toBeUndefined();
  });
});

describe('the introspection verifier', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp();
  });
  afterAll(() => idp.close());
  beforeEach(() => {
    idp.introspection.calls.length = 0;
    idp.introspection.answers.clear();
    delete idp.introspection.fail;
    idp.hang = false;
  });
  afterEach(() => jest.restoreAllMocks());

  const config = (extra: Partial<ApiKeyIntrospectionConfig> = {}): ApiKeyIntrospectionConfig => ({
    url: idp.introspection.url,
    cacheSeconds: 60,
    loopback: true,
    timeoutMs: INTROSPECTION_TIMEOUT_MS,
    ...extra,
  });
  const verifier = (extra: Partial<ApiKeyIntrospectionConfig> = {}, secret = 's3cret') =>
    createIntrospectionVerifier({ config: config(extra), claims, secret: async () => secret });

  /** Our own keys, as the table would hold them. */
  const ours = new Map<string, ApiKeyLookup>();
  const store: ApiKeyStore = {
    findByHash: async (hash) => ours.get(hash),
    recordUse: async () => undefined,
  };
  const verify = (key: string, v = verifier()) => verifyCredential(`Bearer ${key}`, store, v);
  const member = (extra: Record<string, unknown> = {}) => ({
    active: true,
    sub: 'user_idp',
    org_id: 'org_idp',
    ...extra,
  });

  it('accepts an active key as the principal the provider names, with Bearer client authentication', async () => {
    const key = idpKey();
    idp.introspection.answers.set(key, member({ org_role: 'member' }));
    await expect(verify(key)).resolves.toEqual({
      orgId: 'org_idp',
      principalId: 'user_idp',
      kind: 'user',
      credential: 'idpkey',
      claimRole: 'member',
    });
    expect(idp.introspection.calls).toEqual([{ token: key, authorization: 'Bearer s3cret' }]);
  });

  it('authenticates with HTTP Basic when a client id is configured (both parts form-encoded)', async () => {
    const key = idpKey();
    idp.introspection.answers.set(key, member());
    await verify(key, verifier({ clientId: 'cost mgmt' }, 'p@ss:word'));
    const expected = Buffer.from('cost%20mgmt:p%40ss%3Aword').toString('base64');
    expect(idp.introspection.calls[0]?.authorization).toBe(`Basic ${expected}`);
  });

  it('keeps our own keys: one of ours never reaches the provider, a revoked one of ours is 401 without asking', async () => {
    const mine = generateApiKey();
    const revoked = generateApiKey();
    const lookup = { keyId: 'k1', orgId: 'org_a', principalId: 'user_a', kind: 'user' as const };
    ours.set(hashApiKey(mine), { ...lookup, revokedAt: null });
    ours.set(hashApiKey(revoked), { ...lookup, revokedAt: '2026-01-01T00:00:00Z' });
    idp.introspection.answers.set(revoked, member());
    await expect(verify(mine)).resolves.toMatchObject({ credential: 'apikey', keyId: 'k1' });
    await expect(verify(revoked)).rejects.toEqual(new UnauthorizedError());
    // A key in our format that is not in our table may be the provider's: it is asked.
    const notOurs = generateApiKey();
    idp.introspection.answers.set(notOurs, member());
    await expect(verify(notOurs)).resolves.toMatchObject({ credential: 'idpkey' });
    expect(idp.introspection.calls.map((c) => c.token)).toEqual([notOurs]);
  });

  it('without a provider configured, a key that is not ours is 401', async () => {
    const key = idpKey();
    idp.introspection.answers.set(key, member());
    await expect(verifyCredential(`Bearer ${key}`, store)).rejects.toEqual(new UnauthorizedError());
    expect(idp.introspection.calls).toEqual([]);
  });

  it('refuses keys that cannot be an API key without asking', async () => {
    for (const key of [
      'ak_short',
      `ak_${'a'.repeat(201)}`,
      'ak_has.dots.in.it.xxxxxx',
      'ak_+++++++++++++++++++',
    ])
      await expect(verify(key)).rejects.toEqual(new UnauthorizedError());
    expect(idp.introspection.calls).toEqual([]);
  });

  it('caches an active answer for cacheSeconds, never past its exp; an inactive one at most 10 s', async () => {
    const v = verifier({ cacheSeconds: 30 });
    const active = idpKey();
    const shortLived = idpKey();
    const inactive = idpKey();
    idp.introspection.answers.set(active, member());
    idp.introspection.answers.set(shortLived, member({ exp: now() + 5 }));
    const t0 = Date.now();
    const clock = jest.spyOn(Date, 'now');
    const at = (ms: number) => clock.mockReturnValue(t0 + ms);
    const asked = (key: string) => idp.introspection.calls.filter((c) => c.token === key).length;

    at(0);
    for (const key of [active, shortLived]) for (let i = 0; i < 3; i++) await verify(key, v);
    await expect(verify(inactive, v)).rejects.toEqual(new UnauthorizedError());
    await expect(verify(inactive, v)).rejects.toEqual(new UnauthorizedError());
    expect([asked(active), asked(shortLived), asked(inactive)]).toEqual([1, 1, 1]);

    // The provider revokes them; the answers kept still hold...
    idp.introspection.answers.clear();
    at(4_000);
    await verify(active, v);
    await verify(shortLived, v);
    // ...the inactive answer for 10 s at most, the short-lived key's until its exp...
    at(INACTIVE_ANSWER_TTL_MS + 1);
    idp.introspection.answers.set(inactive, member());
    await expect(verify(inactive, v)).resolves.toMatchObject({ principalId: 'user_idp' });
    await expect(verify(shortLived, v)).rejects.toEqual(new UnauthorizedError());
    expect([asked(active), asked(shortLived), asked(inactive)]).toEqual([1, 2, 2]);
    // ...and the active one for cacheSeconds.
    at(30_001);
    await expect(verify(active, v)).rejects.toEqual(new UnauthorizedError());
    expect(asked(active)).toBe(2);
  });

  it('cacheSeconds 0 asks on every request', async () => {
    const v = verifier({ cacheSeconds: 0 });
    const key = idpKey();
    idp.introspection.answers.set(key, member());
    for (let i = 0; i < 3; i++) await verify(key, v);
    expect(idp.introspection.calls).toHaveLength(3);
  });

  it('concurrent requests with the same key share one call', async () => {
    const v = verifier();
    const key = idpKey();
    idp.introspection.answers.set(key, member());
    const all = await Promise.all(Array.from({ length: 8 }, () => verify(key, v)));
    expect(new Set(all.map((a) => a.principalId))).toEqual(new Set(['user_idp']));
    expect(idp.introspection.calls).toHaveLength(1);
  });

  it.each([
    ['503 (provider down)', { status: 503 }],
    ['401 (our client credentials refused)', { status: 401 }],
    ['a redirect (never followed)', { status: 302, location: 'http://127.0.0.1:1/elsewhere' }],
  ])('a provider answering %s is a 401, not cached: the next request asks again', async (_label, fail) => {
    const v = verifier();
    const key = idpKey();
    idp.introspection.answers.set(key, member());
    idp.introspection.fail = fail;
    await expect(verify(key, v)).rejects.toEqual(new UnauthorizedError());
    delete idp.introspection.fail;
    await expect(verify(key, v)).resolves.toMatchObject({ principalId: 'user_idp' });
    expect(idp.introspection.calls).toHaveLength(2);
  });

  it('a provider that never answers is a 401 within the introspection timeout', async () => {
    const key = idpKey();
    idp.hang = true;
    const started = Date.now();
    await expect(verify(key)).rejects.toEqual(new UnauthorizedError());
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(INTROSPECTION_TIMEOUT_MS - 100);
    expect(took).toBeLessThan(INTROSPECTION_TIMEOUT_MS + 2000);
  });

  it('an unreachable provider is a 401', async () => {
    const key = idpKey();
    await expect(verify(key, verifier({ url: 'http://127.0.0.1:1/introspect' }))).rejects.toEqual(
      new UnauthorizedError(),
    );
  });

  it('an http URL that is not loopback, or loopback without the local exemption, is never called', async () => {
    const key = idpKey();
    idp.introspection.answers.set(key, member());
    await expect(verify(key, verifier({ loopback: false }))).rejects.toEqual(new UnauthorizedError());
    expect(idp.introspection.calls).toEqual([]);
  });
});

describe('API_KEY_INTROSPECTION_* configuration', () => {
  const VARS = [
    'API_KEY_INTROSPECTION_URL',
    'API_KEY_INTROSPECTION_CLIENT_ID',
    'API_KEY_INTROSPECTION_SECRET',
    'API_KEY_INTROSPECTION_SECRET_ARN',
    'API_KEY_INTROSPECTION_CACHE_SECONDS',
    'API_KEY_INTROSPECTION_TIMEOUT_MS',
    'AWS_LAMBDA_FUNCTION_NAME',
    'TABLE_NAME',
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'JWKS_URI',
  ] as const;
  const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));
  const configure = (vars: Partial<Record<(typeof VARS)[number], string>>) => {
    for (const k of VARS) delete process.env[k];
    Object.assign(process.env, vars);
  };
  afterEach(() => {
    for (const k of VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('is off without a URL, and reads the URL, client, secret and cache time', () => {
    configure({});
    expect(loadConfig().apiKeyIntrospection).toBeUndefined();
    configure({
      API_KEY_INTROSPECTION_URL: 'https://login.acme.test/oauth2/introspect',
      API_KEY_INTROSPECTION_CLIENT_ID: 'finops',
      API_KEY_INTROSPECTION_SECRET: 'x',
      API_KEY_INTROSPECTION_CACHE_SECONDS: '30',
    });
    expect(loadConfig().apiKeyIntrospection).toEqual({
      url: 'https://login.acme.test/oauth2/introspect',
      clientId: 'finops',
      secret: 'x',
      cacheSeconds: 30,
      loopback: false,
      timeoutMs: 3000,
    });
    configure({ API_KEY_INTROSPECTION_URL: 'https://login.acme.test/i' });
    expect(loadConfig().apiKeyIntrospection?.cacheSeconds).toBe(60);
    configure({
      API_KEY_INTROSPECTION_URL: 'https://login.acme.test/i',
      API_KEY_INTROSPECTION_TIMEOUT_MS: '10000',
    });
    expect(loadConfig().apiKeyIntrospection?.timeoutMs).toBe(10_000);
  });

  it.each([
    ['http on a public host', { API_KEY_INTROSPECTION_URL: 'http://login.acme.test/introspect' }],
    ['credentials in the URL', { API_KEY_INTROSPECTION_URL: 'https://u:p@login.acme.test/introspect' }],
    ['not a URL', { API_KEY_INTROSPECTION_URL: 'login.acme.test' }],
    [
      'a timeout over 10 s',
      { API_KEY_INTROSPECTION_URL: 'https://login.acme.test/i', API_KEY_INTROSPECTION_TIMEOUT_MS: '10001' },
    ],
    [
      'a cache time over 5 minutes',
      { API_KEY_INTROSPECTION_URL: 'https://login.acme.test/i', API_KEY_INTROSPECTION_CACHE_SECONDS: '301' },
    ],
    [
      'loopback http in AWS',
      {
        API_KEY_INTROSPECTION_URL: 'http://127.0.0.1:9/introspect',
        AWS_LAMBDA_FUNCTION_NAME: 'fn',
        TABLE_NAME: 't',
        JWT_ISSUER: 'https://login.acme.test/',
        JWT_AUDIENCE: 'a',
        JWKS_URI: 'https://login.acme.test/jwks.json',
      },
    ],
  ])('refuses %s', (_label, vars) => {
    configure(vars);
    expect(() => loadConfig()).toThrow(/API_KEY_INTROSPECTION_/);
  });

  it('allows http on a loopback address locally (the stand-in provider)', () => {
    configure({ API_KEY_INTROSPECTION_URL: 'http://127.0.0.1:9/introspect' });
    expect(loadConfig().apiKeyIntrospection).toMatchObject({ loopback: true });
  });
});
