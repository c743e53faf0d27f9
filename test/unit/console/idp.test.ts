import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { CONSOLE_PATH, consoleHook } from '../../../infra/local/console-hook';
import { jwks, LOCAL_AUDIENCE, LOCAL_ISSUER, loadOrCreateSigningKey } from '../../../infra/local/idp';
import { IDP_PATH, idpHook, LOCAL_CLIENT_ID } from '../../../infra/local/idp-hook';
import type { DemoSeed } from '../../../infra/local/seed';

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** The local identity provider: a minimal OpenID Connect provider (code flow with PKCE S256). */
describe('the local identity provider (OpenID Connect, code flow with PKCE)', () => {
  const BASE = 'http://127.0.0.1:4321';
  const REDIRECT = `${BASE}/console/`;
  const dir = mkdtempSync(join(tmpdir(), 'idp-hook-'));
  const seed: DemoSeed = {
    orgId: 'org_demo',
    otherOrgId: 'org_acme',
    users: { admin: 'user_demo_admin', member: 'user_demo_member', outsider: 'user_acme_admin' },
    emails: { admin: 'admin@demo.example', member: 'member@demo.example', outsider: 'admin@acme.example' },
    teams: [],
    apiKeys: { admin: 'ak_a', member: 'ak_m', org: 'ak_o', outsider: 'ak_x' },
  };
  const env = process.env.APP_BASE_URL;
  beforeAll(async () => {
    process.env.APP_BASE_URL = BASE;
    await idpHook.start!({ stateDir: dir, seed, stoppers: [] });
  });
  afterAll(() => {
    process.env.APP_BASE_URL = env;
    rmSync(dir, { recursive: true, force: true });
  });

  const handle = (method: string, path: string, body?: unknown, query?: Record<string, string>) =>
    idpHook.handle!(method, path, body, new URLSearchParams(query)) as Promise<Answer | undefined>;
  const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');
  const authParams = (challenge: string, over: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: LOCAL_CLIENT_ID,
    redirect_uri: REDIRECT,
    scope: 'openid email',
    state: 'st-123',
    nonce: 'n-456',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...over,
  });
  /** Signs `user` in through the authorization endpoint; answers the code and the verifier. */
  const codeFor = async (user: string) => {
    const verifier = randomBytes(32).toString('base64url');
    const r = (await handle('POST', `${IDP_PATH}/authorize`, { ...authParams(s256(verifier)), user }))!;
    expect(r.status).toBe(302);
    const to = new URL(r.headers!.location!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('state')).toBe('st-123');
    return { code: to.searchParams.get('code')!, verifier };
  };
  const exchange = (form: Record<string, string>) => handle('POST', `${IDP_PATH}/token`, form);
  const tokenForm = (code: string, verifier: string, over: Record<string, string> = {}) => ({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: LOCAL_CLIENT_ID,
    code_verifier: verifier,
    ...over,
  });

  it('publishes a discovery document naming its endpoints, PKCE S256 and public clients', async () => {
    const r = (await handle('GET', `${IDP_PATH}/.well-known/openid-configuration`))!;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      issuer: LOCAL_ISSUER,
      authorization_endpoint: `${BASE}${IDP_PATH}/authorize`,
      token_endpoint: `${BASE}${IDP_PATH}/token`,
      jwks_uri: `${BASE}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    });
  });

  it('shows the demo users as a "sign in as" page, carrying the request along', async () => {
    const r = (await handle('GET', `${IDP_PATH}/authorize`, undefined, authParams(s256('x'.repeat(43)))))!;
    expect(r.status).toBe(200);
    expect(r.headers!['content-type']).toMatch(/^text\/html/);
    const html = r.body as string;
    expect([...html.matchAll(/data-user="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'user_demo_admin',
      'user_demo_member',
      'user_acme_admin',
    ]);
    expect(html).toContain('name="state" value="st-123"');
    expect(html).toContain(`name="code_challenge" value="${s256('x'.repeat(43))}"`);
  });

  it('refuses an unknown client or redirect URI with a 400 page, never redirecting there', async () => {
    const challenge = s256('y'.repeat(43));
    const bad: Record<string, string>[] = [
      { client_id: 'someone-else' },
      { redirect_uri: 'https://evil.example/console/' },
    ];
    for (const over of bad) {
      const r = (await handle('GET', `${IDP_PATH}/authorize`, undefined, authParams(challenge, over)))!;
      expect(r.status).toBe(400);
      expect(r.headers?.location).toBeUndefined();
      // A person meets this in the browser: a page saying what went wrong, not raw JSON.
      expect(r.headers!['content-type']).toBe('text/html; charset=utf-8');
      expect(r.body).toEqual(expect.stringContaining('<h1>This sign-in request was refused</h1>'));
      expect(r.body).toEqual(
        expect.stringContaining(over.client_id ? 'client_id: not a client' : 'redirect_uri: not registered'),
      );
      expect(r.body).toEqual(expect.stringContaining(`<a href="${REDIRECT}">`));
    }
    // Without PKCE S256 the error goes back to the client, with its state.
    const plain = (await handle(
      'GET',
      `${IDP_PATH}/authorize`,
      undefined,
      authParams(challenge, { code_challenge_method: 'plain' }),
    ))!;
    expect(plain.status).toBe(302);
    expect(plain.headers!.location).toBe(`${REDIRECT}?error=invalid_request&state=st-123`);
    const nobody = (await handle('POST', `${IDP_PATH}/authorize`, {
      ...authParams(challenge),
      user: 'user_x',
    }))!;
    expect(nobody.status).toBe(400);
    expect(nobody.headers!['content-type']).toBe('text/html; charset=utf-8');
    expect(nobody.body).toEqual(expect.stringContaining('not one of the demo users'));
  });

  it('signs in a console opened on localhost as well: its redirect URI is registered, its endpoints same-origin', async () => {
    const LOCALHOST = 'http://localhost:4321';
    const headers = { host: 'localhost:4321' };
    const verifier = randomBytes(32).toString('base64url');
    const params = authParams(s256(verifier), { redirect_uri: `${LOCALHOST}/console/` });
    const page = (await idpHook.handle!(
      'GET',
      `${IDP_PATH}/authorize`,
      undefined,
      new URLSearchParams(params),
      headers,
    ))!;
    expect(page.status).toBe(200);
    const r = (await handle('POST', `${IDP_PATH}/authorize`, { ...params, user: seed.users.member }))!;
    expect(r.status).toBe(302);
    const to = new URL(r.headers!.location!);
    expect(`${to.origin}${to.pathname}`).toBe(`${LOCALHOST}/console/`);
    const t = (await exchange(
      tokenForm(to.searchParams.get('code')!, verifier, { redirect_uri: `${LOCALHOST}/console/` }),
    ))!;
    expect(t.status).toBe(200);
    // config.json and discovery name the origin the page was opened on; another Host is not trusted.
    const config = (await consoleHook.handle!(
      'GET',
      `${CONSOLE_PATH}config.json`,
      undefined,
      undefined,
      headers,
    ))!;
    expect(config.body).toMatchObject({
      apiBaseUrl: LOCALHOST,
      oidc: {
        authorizationEndpoint: `${LOCALHOST}${IDP_PATH}/authorize`,
        tokenEndpoint: `${LOCALHOST}${IDP_PATH}/token`,
      },
    });
    const disco = (await idpHook.handle!(
      'GET',
      `${IDP_PATH}/.well-known/openid-configuration`,
      undefined,
      undefined,
      headers,
    ))!;
    expect(disco.body).toMatchObject({ token_endpoint: `${LOCALHOST}${IDP_PATH}/token` });
    for (const host of ['evil.example:4321', 'localhost:9999', 'localhost.evil.example:4321']) {
      const other = (await consoleHook.handle!('GET', `${CONSOLE_PATH}config.json`, undefined, undefined, {
        host,
      }))!;
      expect(other.body).toMatchObject({ apiBaseUrl: BASE });
    }
  });

  it("exchanges a code with its verifier for an ID token (aud: the client, nonce) and an access token the server's JWKS verifies", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { code, verifier } = await codeFor('user_acme_admin');
    const r = (await exchange(tokenForm(code, verifier)))!;
    expect(r.status).toBe(200);
    expect(r.headers!['cache-control']).toBe('no-store');
    const body = r.body as { id_token: string; access_token: string; token_type: string; expires_in: number };
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    const keys = createLocalJWKSet(jwks(await loadOrCreateSigningKey(dir)));
    const id = await jwtVerify(body.id_token, keys, { issuer: LOCAL_ISSUER, audience: LOCAL_CLIENT_ID });
    expect(id.payload).toMatchObject({
      sub: 'user_acme_admin',
      org_id: 'org_acme',
      org_role: 'admin',
      email: 'admin@acme.example',
      nonce: 'n-456',
    });
    expect(id.payload.exp! - before).toBeGreaterThanOrEqual(3600);
    expect(id.payload.exp! - before).toBeLessThanOrEqual(3602);
    const access = await jwtVerify(body.access_token, keys, {
      issuer: LOCAL_ISSUER,
      audience: LOCAL_AUDIENCE,
    });
    expect(access.payload).toMatchObject({ sub: 'user_acme_admin', org_id: 'org_acme' });
  });

  it('refuses a wrong verifier, a wrong redirect URI, another client and a reused code: 400 invalid_grant', async () => {
    const wrongVerifier = await codeFor('user_demo_member');
    const r1 = (await exchange(tokenForm(wrongVerifier.code, randomBytes(32).toString('base64url'))))!;
    expect(r1.status).toBe(400);
    expect(r1.body).toMatchObject({ error: 'invalid_grant' });
    // A refused presentation spends the code: the right verifier afterwards is refused too.
    expect((await exchange(tokenForm(wrongVerifier.code, wrongVerifier.verifier)))!.status).toBe(400);

    const wrongRedirect = await codeFor('user_demo_member');
    const r2 = (await exchange(
      tokenForm(wrongRedirect.code, wrongRedirect.verifier, { redirect_uri: `${BASE}/elsewhere/` }),
    ))!;
    expect(r2.status).toBe(400);
    expect(r2.body).toMatchObject({ error: 'invalid_grant' });

    const otherClient = await codeFor('user_demo_member');
    const r3 = (await exchange(tokenForm(otherClient.code, otherClient.verifier, { client_id: 'other' })))!;
    expect(r3).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const reused = await codeFor('user_demo_admin');
    expect((await exchange(tokenForm(reused.code, reused.verifier)))!.status).toBe(200);
    const again = (await exchange(tokenForm(reused.code, reused.verifier)))!;
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
    expect(again.body).not.toHaveProperty('id_token');

    const made = (await exchange(tokenForm('made-up', reused.verifier)))!;
    expect(made).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const grant = (await exchange({ ...tokenForm('x', reused.verifier), grant_type: 'password' }))!;
    expect(grant).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
  });

  it('answers nothing outside its paths, nor the old "sign in as" routes', async () => {
    expect(await handle('GET', '/dashboard-v2')).toBeUndefined();
    expect(await handle('GET', `${IDP_PATH}/users`)).toBeUndefined();
    expect(await handle('GET', `${IDP_PATH}/token`)).toBeUndefined();
  });

  it("is named in the console's config.json on the local server", async () => {
    const r = (await consoleHook.handle!('GET', `${CONSOLE_PATH}config.json`, undefined))!;
    expect(r.body).toEqual({
      apiBaseUrl: BASE,
      oidc: {
        issuer: LOCAL_ISSUER,
        clientId: LOCAL_CLIENT_ID,
        name: 'the local identity provider',
        authorizationEndpoint: `${BASE}${IDP_PATH}/authorize`,
        tokenEndpoint: `${BASE}${IDP_PATH}/token`,
      },
    });
  });
});
