import { randomBytes } from 'node:crypto';
import { api, session } from '../support/session';
import { thresholdBody } from '../unit/alerts/fixtures';

/**
 * API keys made in the identity provider (issue 25 §6; docs/auth.md#api-keys-from-the-identity-provider),
 * over HTTP on the local stack, whose stand-in provider (infra/local/idp-api-keys.ts) issues and
 * revokes keys and answers the service's token introspection (RFC 7662). The service keeps its own
 * `ak_` keys and asks the provider about any other `ak_` key: the principal and the organisation
 * come from the provider's answer, every failure is the same 401, and answers are cached briefly.
 */

const s = () => session();
const UNAUTHORIZED = { status: 401, body: { error: 'Unauthorized' } };

interface IssuedKey {
  id: string;
  key: string;
}

async function local<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${s().baseUrl}${path}`, {
    method,
    ...(body !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A key made in the identity provider's "dashboard" (the stand-in). */
async function issue(body: Record<string, unknown>): Promise<IssuedKey> {
  const res = await local<IssuedKey>('POST', '/_local/idp/api-keys', body);
  expect(res.status).toBe(201);
  expect(res.body.key).toMatch(/^ak_/);
  return res.body;
}

const revoke = async (id: string) =>
  expect((await local('DELETE', `/_local/idp/api-keys/${id}`)).status).toBe(200);
const introspections = async (id: string) =>
  (await local<{ introspections: number }>('GET', `/_local/idp/api-keys/${id}`)).body.introspections;
const outage = async (down: boolean) =>
  expect((await local('POST', '/_local/idp/outage', { down })).status).toBe(200);

const listAlerts = (token: string) =>
  api<{ items: { id: string; organizationId: string }[] }>('GET', '/alerts-v2/costAlerts?limit=100', {
    token,
  });
const status = async (token: string, path = '/reports') => {
  const res = await api('GET', path, { token, skipContract: true });
  return { status: res.status, body: res.status === 401 ? res.body : undefined };
};

describe('API keys made in the identity provider', () => {
  let adminAlert: string;

  beforeAll(async () => {
    const res = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
      token: s().apiKeys.admin,
      body: thresholdBody({ name: `idp keys ${Date.now()}` }),
    });
    expect(res.status).toBe(201);
    adminAlert = res.body.id;
  });

  afterAll(() => outage(false));

  it("a user's key works on the routes, as that user of that organisation", async () => {
    const { key } = await issue({ subject: s().users.member, orgId: s().orgId });
    const list = await listAlerts(key);
    expect(list.status).toBe(200);
    expect(list.body.items.map((a) => a.id)).toContain(adminAlert);
    expect(new Set(list.body.items.map((a) => a.organizationId))).toEqual(new Set([s().orgId]));
    // A write is made as the key's user.
    const created = await api<{ createdById: string; organizationId: string }>(
      'POST',
      '/alerts-v2/costAlerts',
      {
        token: key,
        body: thresholdBody({ name: `idp key write ${Date.now()}` }),
      },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ createdById: s().users.member, organizationId: s().orgId });
    // The stored profile's role decides: the demo member is not an admin, whatever the key claims.
    const claimsAdmin = await issue({ subject: s().users.member, orgId: s().orgId, role: 'org:admin' });
    expect((await api('GET', '/iac/users', { token: claimsAdmin.key })).status).toBe(403);
    // GET /me: the key's user, as the provider's key (of which the service holds no record).
    const me = await api('GET', '/me', { token: key });
    expect(me).toMatchObject({
      status: 200,
      body: {
        kind: 'user',
        userId: s().users.member,
        email: s().emails.member,
        role: 'member',
        organization: { id: s().orgId },
        credential: 'idpApiKey',
        apiKey: null,
      },
    });
  });

  it('the organisation is the one the provider names: another organisation’s key sees none of ours', async () => {
    const { key } = await issue({ subject: s().users.outsider, orgId: s().otherOrgId });
    const list = await listAlerts(key);
    expect(list.status).toBe(200);
    expect(list.body.items.map((a) => a.id)).not.toContain(adminAlert);
    expect(list.body.items.every((a) => a.organizationId === s().otherOrgId)).toBe(true);
    const read = await api('GET', `/alerts-v2/costAlerts/${adminAlert}/widgetData`, { token: key });
    expect(read).toMatchObject({ status: 404, body: { error: 'Alert not found' } });
    // A user of ours made for this test (other suites may give org B a profile of the same id as
    // one of our demo users: ids are the identity provider's, profiles are per organisation).
    const ours = `user_idp_ours_${Date.now().toString(36)}`;
    const put = await api('PUT', `/iac/users/${ours}`, {
      token: s().apiKeys.admin,
      body: { email: `${ours}@example.org`, name: 'Ours' },
    });
    expect(put.status).toBeLessThan(300);
    const users = await api<{ items: { id: string }[] }>('GET', '/iac/users?limit=100', { token: key });
    expect(users.status).toBe(200);
    expect(users.body.items.map((u) => u.id)).not.toContain(ours);
  });

  it("an organisation's key acts as the organisation (an admin)", async () => {
    const { key } = await issue({ subject: s().orgId });
    const users = await api<{ items: { id: string }[] }>('GET', '/iac/users?limit=100', { token: key });
    expect(users.status).toBe(200);
    expect(users.body.items.map((u) => u.id)).toEqual(
      expect.arrayContaining([s().users.admin, s().users.member]),
    );
    const me = await api('GET', '/me', { token: key });
    expect(me).toMatchObject({
      status: 200,
      body: { kind: 'org', principalId: s().orgId, userId: null, role: 'admin', credential: 'idpApiKey' },
    });
  });

  it('a user the service has no profile of yet gets the role the provider claims', async () => {
    const run = Date.now().toString(36);
    const newcomer = await issue({ subject: `user_idp_new_${run}`, orgId: s().orgId, role: 'member' });
    expect((await listAlerts(newcomer.key)).status).toBe(200);
    expect((await api('GET', '/iac/users', { token: newcomer.key })).status).toBe(403);
    const newAdmin = await issue({ subject: `user_idp_boss_${run}`, orgId: s().orgId, role: 'org:admin' });
    expect((await api('GET', '/iac/users', { token: newAdmin.key })).status).toBe(200);
  });

  it('revoked, expired, unknown and malformed keys are the same 401', async () => {
    const revoked = await issue({ subject: s().users.member, orgId: s().orgId });
    await revoke(revoked.id);
    const expired = await issue({ subject: s().users.member, orgId: s().orgId, expiresInSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    const unknown = `ak_${randomBytes(30).toString('base64url')}`;
    for (const key of [revoked.key, expired.key, unknown, 'ak_short', `ak_${'x'.repeat(300)}`, 'ak_a b']) {
      expect({ key, ...(await status(key)) }).toEqual({ key, ...UNAUTHORIZED });
    }
    expect(await introspections(revoked.id)).toBe(1);
  });

  it('a provider that is down is a 401, and is asked again on the next request', async () => {
    const { id, key } = await issue({ subject: s().users.member, orgId: s().orgId });
    await outage(true);
    try {
      expect(await status(key)).toEqual(UNAUTHORIZED);
      expect(await status(key, '/alerts-v2/costAlerts')).toEqual(UNAUTHORIZED);
      // Our own keys do not depend on the provider.
      expect((await status(s().apiKeys.member)).status).toBe(200);
    } finally {
      await outage(false);
    }
    expect((await status(key)).status).toBe(200);
    // The failures were not cached: the provider answered once, after the outage.
    expect(await introspections(id)).toBe(1);
  });

  it('an answer is cached briefly: one introspection for repeated requests, asked again when it is up', async () => {
    // The answer is kept for the configured time (60 s locally), never past the key's `exp`.
    const { id, key } = await issue({ subject: s().users.member, orgId: s().orgId, expiresInSeconds: 4 });
    const issuedAt = Date.now();
    for (let i = 0; i < 4; i++) expect((await status(key)).status).toBe(200);
    expect(await introspections(id)).toBe(1);
    // Revoked at the provider: the cached answer still holds until it is up (the documented delay)...
    await revoke(id);
    expect((await status(key)).status).toBe(200);
    expect(await introspections(id)).toBe(1);
    // ...then the provider is asked again, and the key is refused.
    await new Promise((r) => setTimeout(r, Math.max(0, issuedAt + 4500 - Date.now())));
    expect(await status(key)).toEqual(UNAUTHORIZED);
    expect(await introspections(id)).toBe(2);
    // An inactive answer is kept too (at most 10 s): the next request asks nobody.
    expect(await status(key)).toEqual(UNAUTHORIZED);
    expect(await introspections(id)).toBe(2);
  });
});
