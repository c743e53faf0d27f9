import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { CONSOLE_PATH, consoleHook } from '../../../infra/local/console-hook';
import { jwks, LOCAL_AUDIENCE, LOCAL_ISSUER, loadOrCreateSigningKey } from '../../../infra/local/idp';
import { IDP_PATH, idpHook } from '../../../infra/local/idp-hook';
import type { DemoSeed } from '../../../infra/local/seed';

/** The local identity provider's "sign in as" routes that the console's sign-in page uses. */
describe('the local identity provider for the console', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idp-hook-'));
  const seed: DemoSeed = {
    orgId: 'org_demo',
    otherOrgId: 'org_acme',
    users: { admin: 'user_demo_admin', member: 'user_demo_member', outsider: 'user_acme_admin' },
    emails: { admin: 'admin@demo.example', member: 'member@demo.example', outsider: 'admin@acme.example' },
    teams: [],
    apiKeys: { admin: 'ak_a', member: 'ak_m', org: 'ak_o', outsider: 'ak_x' },
  };
  beforeAll(async () => {
    await idpHook.start!({ stateDir: dir, seed, stoppers: [] });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the demo users with their organisation and role', async () => {
    const r = await idpHook.handle!('GET', `${IDP_PATH}/users`, undefined);
    expect(r!.status).toBe(200);
    expect(
      (r!.body as { userId: string; orgId: string; role: string }[]).map((u) => [u.userId, u.orgId, u.role]),
    ).toEqual([
      ['user_demo_admin', 'org_demo', 'admin'],
      ['user_demo_member', 'org_demo', 'member'],
      ['user_acme_admin', 'org_acme', 'admin'],
    ]);
  });

  it("mints a one-hour JWT for a demo user that the server's JWKS verifies", async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await idpHook.handle!('POST', `${IDP_PATH}/token`, { userId: 'user_acme_admin' });
    expect(r!.status).toBe(200);
    expect(r!.headers!['cache-control']).toBe('no-store');
    const { token } = r!.body as { token: string };
    const keys = createLocalJWKSet(jwks(await loadOrCreateSigningKey(dir)));
    const { payload } = await jwtVerify(token, keys, { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE });
    expect(payload).toMatchObject({ sub: 'user_acme_admin', org_id: 'org_acme', org_role: 'admin' });
    expect(payload.exp! - before).toBeGreaterThanOrEqual(3600);
    expect(payload.exp! - before).toBeLessThanOrEqual(3602);
  });

  it('refuses anyone but the demo users, and answers nothing else', async () => {
    for (const body of [{ userId: 'user_someone' }, {}, null]) {
      const r = await idpHook.handle!('POST', `${IDP_PATH}/token`, body);
      expect(r).toEqual({ status: 400, body: { error: 'userId: not one of the demo users' } });
    }
    expect(await idpHook.handle!('GET', `${IDP_PATH}/token`, undefined)).toBeUndefined();
    expect(await idpHook.handle!('GET', '/dashboard-v2', undefined)).toBeUndefined();
  });

  it("is named in the console's config.json on the local server", async () => {
    const env = process.env.APP_BASE_URL;
    process.env.APP_BASE_URL = 'http://127.0.0.1:4321';
    try {
      const r = await consoleHook.handle!('GET', `${CONSOLE_PATH}config.json`, undefined);
      expect(r!.body).toEqual({
        apiBaseUrl: 'http://127.0.0.1:4321',
        localIdp: `http://127.0.0.1:4321${IDP_PATH}`,
      });
    } finally {
      process.env.APP_BASE_URL = env;
    }
  });
});
