import { loadOrCreateSigningKey, mintToken } from '../../infra/local/idp';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';

/**
 * `GET /me` (docs/admin.md, "Who am I"): any principal learns who it is, a member included (who
 * cannot list users); a session, a user key and the organisation key each answer what they are.
 */
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const orgId = `org_me${run}`;
const adminId = `user_meadmin${run}`;
const memberId = `user_memember${run}`;
const ORG_NAME = `Who am I ${run}`;

interface Me {
  principalId: string;
  kind: 'user' | 'org';
  userId: string | null;
  name: string | null;
  email: string | null;
  role: 'admin' | 'member';
  teamIds: string[];
  organization: { id: string; name: string | null };
  credential: 'session' | 'apiKey' | 'idpApiKey';
  apiKey: { id: string; name: string; prefix: string } | null;
}

let adminKey = '';
const jwt = async (org: string, userId: string, role: 'admin' | 'member') =>
  mintToken(await loadOrCreateSigningKey(session().stateDir), { userId, orgId: org, role });

beforeAll(async () => {
  adminKey = await freshOrg(orgId, adminId, ORG_NAME);
  const put = await api('PUT', `/iac/users/${memberId}`, {
    token: adminKey,
    body: { email: `ana.${run}@example.com`, name: 'Ana Lima', role: 'member' },
  });
  expect(put.status).toBe(200);
});

describe('GET /me', () => {
  it("answers a member's session with their stored name and e-mail (they cannot list users)", async () => {
    const token = await jwt(orgId, memberId, 'member');
    expect((await api('GET', '/iac/users', { token })).status).toBe(403);
    const me = await api<Me>('GET', '/me', { token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      principalId: memberId,
      kind: 'user',
      userId: memberId,
      name: 'Ana Lima',
      email: `ana.${run}@example.com`,
      role: 'member',
      teamIds: [],
      organization: { id: orgId, name: ORG_NAME },
      credential: 'session',
      apiKey: null,
    });
  });

  it('answers a user key with its user and the key (id, name, prefix), never the key', async () => {
    const me = await api<Me>('GET', '/me', { token: adminKey });
    expect(me.status).toBe(200);
    const keys = await api<{ items: { id: string; name: string; prefix: string }[] }>('GET', '/api-keys', {
      token: adminKey,
    });
    const [key] = keys.body.items;
    expect(me.body).toEqual({
      principalId: adminId,
      kind: 'user',
      userId: adminId,
      name: ORG_NAME,
      email: `${adminId}@example.com`,
      role: 'admin',
      teamIds: [],
      organization: { id: orgId, name: ORG_NAME },
      credential: 'apiKey',
      apiKey: { id: key!.id, name: key!.name, prefix: key!.prefix },
    });
    expect(adminKey.startsWith(key!.prefix)).toBe(true);
    expect(JSON.stringify(me.body)).not.toContain(adminKey);
  });

  it('answers the organisation key as the organisation principal: no user, admin', async () => {
    const created = await api<{ id: string; key: string; name: string; prefix: string }>(
      'POST',
      '/api-keys',
      {
        token: adminKey,
        body: { name: `org key ${run}`, kind: 'org' },
      },
    );
    expect(created.status).toBe(201);
    const me = await api<Me>('GET', '/me', { token: created.body.key });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      principalId: orgId,
      kind: 'org',
      userId: null,
      name: null,
      email: null,
      role: 'admin',
      teamIds: [],
      organization: { id: orgId, name: ORG_NAME },
      credential: 'apiKey',
      apiKey: { id: created.body.id, name: `org key ${run}`, prefix: created.body.prefix },
    });
  });

  it('answers a first-time user of an unregistered organisation without names; 401 without a credential', async () => {
    const stranger = `user_mestranger${run}`;
    const other = `org_menew${run}`;
    const me = await api<Me>('GET', '/me', { token: await jwt(other, stranger, 'member') });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      userId: stranger,
      name: null,
      email: null,
      role: 'member',
      organization: { id: other, name: null },
      credential: 'session',
    });
    const anonymous = await api('GET', '/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Unauthorized' });
  });
});
