import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { loadOrCreateSigningKey, mintToken } from '../../infra/local/idp';
import { db, tableName } from '../../shared/db/client';
import { ensureUser, getUser } from '../../shared/db/users-repo';
import { MAX_SYNC_MEMBERS } from '../../shared/domain/teams/schemas';
import { SYNC_INLINE_LIMITS } from '../../shared/domain/teams/sync';
import { mapLimit } from '../../shared/pool';
import { freshOrg } from '../support/fresh-org';
import { api, session, stackKeys } from '../support/session';

const s = () => session();
const { admin, member, org: orgKey, outsider } = stackKeys;

const run = Math.random().toString(36).slice(2, 8);
let seq = 0;
const unique = (label: string) => `${label} ${run}-${++seq}`;

interface Team {
  id: string;
  name: string;
  members: { userId: string; email: string | null }[];
  invitations: { email: string }[];
  lastSyncAt: string | null;
}

interface Captured {
  body: { email?: string; teamId?: string };
  headers: Record<string, string>;
}

async function newTeam(name = unique('Team'), token = admin()): Promise<Team> {
  const res = await api<Team>('POST', '/iac/teams', { token, body: { name } });
  expect(res.status).toBe(201);
  return res.body;
}

const sync = (token: string, ref: string, members: unknown[]) =>
  api<Record<string, unknown>>('POST', `/iac/teams/${encodeURIComponent(ref)}/SYNC`, {
    token,
    body: { members },
  });

const readTeam = async (id: string, token = admin()) =>
  (await api<Team>('GET', `/iac/teams/${id}`, { token })).body;

async function idpCalls(): Promise<Captured[]> {
  const res = await fetch(`${s().endpoints.capture}/messages?kind=idp`);
  return (await res.json()) as Captured[];
}

describe('team SYNC over HTTP', () => {
  it('syncs by id and by name in another casing', async () => {
    const team = await newTeam();
    const byId = await sync(admin(), team.id, [{ userId: s().users.admin }]);
    expect(byId).toMatchObject({ status: 200, body: { success: true } });
    expect((await readTeam(team.id)).members.map((m) => m.userId)).toEqual([s().users.admin]);

    const byName = await sync(orgKey(), team.name.toUpperCase(), [
      { email: s().emails.member.toUpperCase() },
    ]);
    expect(byName).toMatchObject({ status: 200, body: { success: true } });
    expect((await readTeam(team.id)).members.map((m) => m.userId)).toEqual([s().users.member]);
  });

  it('removes, adds and invites in one call; the same call repeated changes nothing', async () => {
    const team = await newTeam();
    await sync(admin(), team.id, [{ userId: s().users.admin }]);
    const invitee = `new-${run}-${++seq}@example.org`;
    const members = [{ userId: s().users.member, email: s().emails.member }, { email: invitee }];

    const res = await sync(admin(), team.id, members);
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    const after = await readTeam(team.id);
    expect(after.members.map((m) => m.userId)).toEqual([s().users.member]);
    expect(after.invitations.map((i) => i.email)).toEqual([invitee]);
    const sent = (await idpCalls()).filter((c) => c.body.email === invitee);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({ teamId: team.id, organizationId: s().orgId });
    expect(sent[0]?.headers['idempotency-key']).toEqual(expect.any(String));

    const again = await sync(admin(), team.name.toLowerCase(), members);
    expect(again).toMatchObject({ status: 200, body: { success: true } });
    const unchanged = await readTeam(team.id);
    expect(unchanged).toEqual(after); // same members, invitations and lastSyncAt: nothing was written
    expect((await idpCalls()).filter((c) => c.body.email === invitee)).toHaveLength(1);
  });

  it('a member added by SYNC passes the team check on the next request, and loses it once removed', async () => {
    const team = await newTeam();
    const before = await api('POST', '/reports', {
      token: member(),
      body: { name: 'team report', teamId: team.id },
    });
    expect(before).toMatchObject({ status: 403, body: { error: 'TEAM_MEMBER_REQUIRED' } });

    await sync(admin(), team.id, [{ userId: s().users.member }]);
    const during = await api('POST', '/reports', {
      token: member(),
      body: { name: 'team report', teamId: team.id },
    });
    expect(during.status).toBe(201);

    await sync(admin(), team.id, []);
    const after = await api('POST', '/reports', {
      token: member(),
      body: { name: 'team report', teamId: team.id },
    });
    expect(after).toMatchObject({ status: 403, body: { error: 'TEAM_MEMBER_REQUIRED' } });
  });

  it('refuses non-admins with 403 {error}', async () => {
    const team = await newTeam();
    const res = await sync(member(), team.id, [{ userId: s().users.member }]);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'FORBIDDEN' });
    expect((await readTeam(team.id)).members).toEqual([]);
  });

  it("treats another organisation's team as not found, in the sync error shape", async () => {
    const team = await newTeam();
    const res = await sync(outsider(), team.id, []);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      error: 'NOT_FOUND',
      reason: expect.any(String),
      details: expect.any(Array),
      summary: { added: 0, removed: 0, invited: 0 },
    });
    const byName = await sync(outsider(), team.name, []);
    expect(byName.status).toBe(404);
  });

  it('rejects bad payloads whole, with the would-be summary, and changes nothing', async () => {
    const team = await newTeam();
    await sync(admin(), team.id, [{ userId: s().users.admin }]);
    const dup = await sync(admin(), team.id, [
      { userId: s().users.member },
      { email: `x-${run}@example.org` },
      { email: `X-${run}@EXAMPLE.org` },
    ]);
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({
      error: 'VALIDATION_ERROR',
      reason: 'members.2.email: duplicate of members.1.email',
      details: [{ path: 'members.2.email', message: 'duplicate of members.1.email' }],
      summary: { added: 1, removed: 1, invited: 1 },
    });

    const badEmail = await sync(admin(), team.id, [{ email: 'not-an-email' }]);
    expect(badEmail.status).toBe(400);
    expect(badEmail.body).toMatchObject({
      error: 'VALIDATION_ERROR',
      details: [{ path: 'members.0.email' }],
      summary: { added: 0, removed: 0, invited: 0 },
    });

    const neither = await sync(admin(), team.id, [{}]);
    expect(neither.status).toBe(400);
    expect(neither.body).toMatchObject({
      error: 'VALIDATION_ERROR',
      reason: expect.stringContaining('userId'),
    });

    const unknown = await sync(admin(), team.id, [{ userId: 'user_nobody' }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      details: [{ path: 'members.0.userId', message: 'unknown user user_nobody' }],
    });

    expect((await readTeam(team.id)).members.map((m) => m.userId)).toEqual([s().users.admin]);
  });

  it('keeps team names unique case-insensitively at creation', async () => {
    const name = unique('Shared');
    await newTeam(name);
    const clash = await api('POST', '/iac/teams', { token: admin(), body: { name: name.toUpperCase() } });
    expect(clash).toMatchObject({ status: 409, body: { error: 'TEAM_NAME_TAKEN' } });
  });
});

describe('teams and scopes over HTTP', () => {
  it('members read teams; only admins write them', async () => {
    const team = await newTeam();
    const list = await api<{ items: Team[] }>('GET', '/iac/teams?limit=100', { token: member() });
    expect(list.status).toBe(200);
    const read = await api<Team>('GET', `/iac/teams/${encodeURIComponent(team.name.toLowerCase())}`, {
      token: member(),
    });
    expect(read).toMatchObject({ status: 200, body: { id: team.id } });
    expect(await api('POST', '/iac/teams', { token: member(), body: { name: unique('x') } })).toMatchObject({
      status: 403,
    });
    const renamed = await api<Team>('PATCH', `/iac/teams/${team.id}`, {
      token: admin(),
      body: { name: `${team.name} renamed` },
    });
    expect(renamed).toMatchObject({ status: 200, body: { name: `${team.name} renamed` } });
    expect(await api('DELETE', `/iac/teams/${team.id}`, { token: member() })).toMatchObject({ status: 403 });
    expect(await api('DELETE', `/iac/teams/${team.id}`, { token: admin() })).toMatchObject({ status: 200 });
    expect(await api('GET', `/iac/teams/${team.id}`, { token: admin() })).toMatchObject({
      status: 404,
      body: { error: 'NOT_FOUND' },
    });
  });

  it('a team scope is usable by its members only, from the next request after a SYNC', async () => {
    const team = await newTeam();
    const created = await api<{ id: string }>('POST', '/iac/scopes', {
      token: admin(),
      body: { name: unique('Scope'), teamIds: [team.id], filters: { provider: ['AWS'] } },
    });
    expect(created.status).toBe(201);
    expect(await api('GET', `/iac/scopes/${created.body.id}`, { token: member() })).toMatchObject({
      status: 404,
    });
    await sync(admin(), team.id, [{ userId: s().users.member }]);
    expect(await api('GET', `/iac/scopes/${created.body.id}`, { token: member() })).toMatchObject({
      status: 200,
      body: { id: created.body.id, teamIds: [team.id] },
    });
    expect(
      await api('POST', '/iac/scopes', { token: admin(), body: { name: 'x', teamIds: ['team_missing'] } }),
    ).toMatchObject({ status: 400, body: { error: 'VALIDATION_ERROR' } });
    expect(await api('POST', '/iac/scopes', { token: member(), body: { name: 'x' } })).toMatchObject({
      status: 403,
    });
  });
});

describe('scope updates over HTTP', () => {
  it('PATCH honours If-Match: a stale version is 409 and changes nothing; reads carry the ETag', async () => {
    const created = await api<{ id: string; version: number }>('POST', '/iac/scopes', {
      token: admin(),
      body: { name: unique('Locked scope') },
    });
    expect(created).toMatchObject({ status: 201, body: { version: 1 } });
    const path = `/iac/scopes/${created.body.id}`;
    const read = await api('GET', path, { token: admin() });
    expect(read.headers.get('etag')).toBe('"1"');
    const first = await api('PATCH', path, {
      token: admin(),
      body: { description: 'one' },
      headers: { 'if-match': '"1"' },
    });
    expect(first).toMatchObject({ status: 200, body: { description: 'one', version: 2 } });
    expect(first.headers.get('etag')).toBe('"2"');
    const stale = await api('PATCH', path, {
      token: admin(),
      body: { description: 'two' },
      headers: { 'if-match': '"1"' },
    });
    expect(stale).toMatchObject({ status: 409, body: { error: 'VERSION_CONFLICT' } });
    const bad = await api('PATCH', path, {
      token: admin(),
      body: { description: 'x' },
      headers: { 'if-match': 'v1' },
    });
    expect(bad.status).toBe(400);
    const any = await api('PATCH', path, {
      token: admin(),
      body: { description: 'three' },
      headers: { 'if-match': '*' },
    });
    expect(any).toMatchObject({ status: 200, body: { description: 'three', version: 3 } });
  });
});

describe('users over HTTP', () => {
  it('registering an invited e-mail makes the person a member of the inviting team', async () => {
    const team = await newTeam();
    const email = `joiner-${run}@example.org`;
    await sync(admin(), team.id, [{ email }]);
    expect((await readTeam(team.id)).invitations.map((i) => i.email)).toEqual([email]);

    const userId = `user_joiner_${run}`;
    expect(await api('PUT', `/iac/users/${userId}`, { token: member(), body: { email } })).toMatchObject({
      status: 403,
    });
    const put = await api('PUT', `/iac/users/${userId}`, { token: admin(), body: { email, name: 'Joiner' } });
    expect(put).toMatchObject({
      status: 200,
      body: { id: userId, role: 'member', joinedTeamIds: [team.id] },
    });
    const after = await readTeam(team.id);
    expect(after.invitations).toEqual([]);
    expect(after.members.map((m) => m.userId)).toEqual([userId]);
    expect(
      await api('PUT', `/iac/users/user_other_${run}`, {
        token: admin(),
        body: { email: email.toUpperCase() },
      }),
    ).toMatchObject({ status: 409, body: { error: 'EMAIL_IN_USE' } });
  });

  it('an omitted name or role keeps the stored one: changing an e-mail does not demote an admin', async () => {
    const userId = `user_keeper_${run}`;
    const created = await api('PUT', `/iac/users/${userId}`, {
      token: admin(),
      body: { email: `keeper-${run}@example.org`, name: 'Keeper', role: 'admin' },
    });
    expect(created).toMatchObject({ status: 200, body: { name: 'Keeper', role: 'admin' } });
    const moved = await api('PUT', `/iac/users/${userId}`, {
      token: admin(),
      body: { email: `keeper-new-${run}@example.org` },
    });
    expect(moved).toMatchObject({
      status: 200,
      body: { email: `keeper-new-${run}@example.org`, name: 'Keeper', role: 'admin' },
    });
    const demoted = await api('PUT', `/iac/users/${userId}`, {
      token: admin(),
      body: { email: `keeper-new-${run}@example.org`, role: 'member', name: '' },
    });
    expect(demoted).toMatchObject({ status: 200, body: { name: '', role: 'member' } });
    const fresh = await api('PUT', `/iac/users/user_fresh_${run}`, {
      token: admin(),
      body: { email: `fresh-${run}@example.org` },
    });
    expect(fresh).toMatchObject({ status: 200, body: { name: '', role: 'member' } });
  });
});

describe('metrics datasources over HTTP', () => {
  it('archiving stops points and metric queries; archiving again is idempotent; unknown is 404', async () => {
    const created = await api<{ id: string; archivedAt: string | null }>('POST', '/iac/metricsDatasources', {
      token: admin(),
      body: { name: unique('Orders'), unit: 'orders' },
    });
    expect(created).toMatchObject({ status: 201, body: { archivedAt: null } });
    const id = created.body.id;
    const points = `/metrics-datasources/${id}/points`;
    const push = await api('POST', points, {
      token: orgKey(),
      body: {
        points: [
          { timestamp: '2026-01-01T10:00:00Z', value: 3 },
          { timestamp: '2026-01-01T10:00:00.000Z', value: 4 },
          { timestamp: '2026-01-02', value: 5, metric: 'refunds' },
        ],
      },
    });
    expect(push).toMatchObject({
      status: 200,
      body: { accepted: 2, duplicates: 1, metrics: ['refunds', 'value'] },
    });
    const query = `${points}?from=2026-01-01&to=2026-01-03&granularity=day`;
    const before = await api<{ points: unknown[] }>('GET', query, { token: member() });
    expect(before.body.points).toEqual([
      { metric: 'value', timestamp: '2026-01-01T00:00:00.000Z', value: 4 },
      { metric: 'refunds', timestamp: '2026-01-02T00:00:00.000Z', value: 5 },
    ]);
    expect(await api('POST', points, { token: member(), body: { points: [] } })).toMatchObject({
      status: 403,
    });

    const archived = await api<{ archivedAt: string }>('DELETE', `/iac/metricsDatasources/${id}`, {
      token: admin(),
    });
    expect(archived.status).toBe(200);
    expect(archived.body.archivedAt).toEqual(expect.any(String));
    const again = await api<{ archivedAt: string }>('DELETE', `/iac/metricsDatasources/${id}`, {
      token: admin(),
    });
    expect(again).toMatchObject({ status: 200, body: { archivedAt: archived.body.archivedAt } });

    const refused = await api('POST', points, {
      token: orgKey(),
      body: { points: [{ timestamp: '2026-01-04T00:00:00Z', value: 1 }] },
    });
    expect(refused).toMatchObject({ status: 409, body: { error: 'DATASOURCE_ARCHIVED' } });
    const after = await api<{ points: unknown[]; archived: boolean }>('GET', query, { token: member() });
    expect(after.body).toMatchObject({ points: [], archived: true });
    const listed = await api<{ items: { id: string }[] }>('GET', '/iac/metricsDatasources?limit=100', {
      token: member(),
    });
    expect(listed.body.items.map((d) => d.id)).not.toContain(id);

    expect(await api('DELETE', '/iac/metricsDatasources/ds_unknown', { token: admin() })).toMatchObject({
      status: 404,
      body: { error: 'NOT_FOUND' },
    });
    expect(await api('DELETE', `/iac/metricsDatasources/${id}`, { token: outsider() })).toMatchObject({
      status: 404,
    });
    expect(await api('DELETE', `/iac/metricsDatasources/${id}`, { token: member() })).toMatchObject({
      status: 403,
      body: { error: 'FORBIDDEN' },
    });
  });

  it('refuses invalid points with 400 {error} naming the point', async () => {
    const created = await api<{ id: string }>('POST', '/iac/metricsDatasources', {
      token: admin(),
      body: { name: unique('Bad') },
    });
    const res = await api('POST', `/metrics-datasources/${created.body.id}/points`, {
      token: admin(),
      body: {
        points: [
          { timestamp: '2026-01-01T00:00:00Z', value: 1 },
          { timestamp: 'soon', value: 1 },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toContain('points.1.timestamp');
  });
});

describe('API keys over HTTP', () => {
  it('creates a key shown once, lists it without the key, and a revoked key gets 401 on the next request', async () => {
    const created = await api<{ id: string; key: string; prefix: string }>('POST', '/api-keys', {
      token: member(),
      body: { name: 'laptop' },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^ak_[0-9A-Za-z]{38}$/);
    const fresh = created.body.key;

    const listed = await api<{ items: Record<string, unknown>[] }>('GET', '/api-keys', { token: fresh });
    expect(listed.status).toBe(200);
    const row = listed.body.items.find((k) => k.id === created.body.id);
    expect(row).toMatchObject({ name: 'laptop', prefix: fresh.slice(0, 9), revokedAt: null });
    expect(row?.lastUsedAt).toEqual(expect.any(String));
    expect(Object.keys(row ?? {})).not.toContain('key');
    expect(Object.keys(row ?? {})).not.toContain('hash');
    expect(JSON.stringify(listed.body)).not.toContain(fresh);

    const revoked = await api<{ revokedAt: string }>('DELETE', `/api-keys/${created.body.id}`, {
      token: member(),
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const after = await api('GET', '/api-keys', { token: fresh });
    expect(after).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
  });

  it('members manage only their own keys; admins any key of the org, and org keys', async () => {
    const mine = await api<{ id: string }>('POST', '/api-keys', { token: member(), body: { name: 'm' } });
    expect(await api('DELETE', `/api-keys/${mine.body.id}`, { token: outsider() })).toMatchObject({
      status: 404,
    });
    const adminList = await api<{ items: { id: string }[] }>('GET', '/api-keys?limit=100', {
      token: admin(),
    });
    expect(adminList.body.items.map((k) => k.id)).toContain(mine.body.id);
    const memberList = await api<{ items: { principalId: string }[] }>('GET', '/api-keys', {
      token: member(),
    });
    expect(new Set(memberList.body.items.map((k) => k.principalId))).toEqual(new Set([s().users.member]));
    expect(
      await api('POST', '/api-keys', { token: member(), body: { name: 'o', kind: 'org' } }),
    ).toMatchObject({
      status: 403,
    });
    const orgOwned = await api<{ kind: string; principalId: string; key: string }>('POST', '/api-keys', {
      token: admin(),
      body: { name: 'automation', kind: 'org' },
    });
    expect(orgOwned.body).toMatchObject({ kind: 'org', principalId: s().orgId });
    expect(await api('GET', '/iac/teams', { token: orgOwned.body.key })).toMatchObject({ status: 200 });
    expect(await api('DELETE', `/api-keys/${mine.body.id}`, { token: admin() })).toMatchObject({
      status: 200,
    });
  });

  it("an admin's own session JWT (no stored profile yet) mints a user key that acts as that admin", async () => {
    const signing = await loadOrCreateSigningKey(s().stateDir);
    const userId = `user_jwtkey_admin_${run}`;
    const jwt = await mintToken(signing, { userId, orgId: s().orgId, role: 'admin' });
    expect(await getUser(s().orgId, userId)).toBeUndefined();
    // Concurrent first keys: both succeed, one profile.
    const [first, second] = await Promise.all(
      ['laptop', 'ci'].map((name) =>
        api<{ kind: string; principalId: string; key: string }>('POST', '/api-keys', {
          token: jwt,
          body: { name },
        }),
      ),
    );
    expect(first).toMatchObject({ status: 201, body: { kind: 'user', principalId: userId } });
    expect(second).toMatchObject({ status: 201, body: { kind: 'user', principalId: userId } });
    expect(await getUser(s().orgId, userId)).toMatchObject({ id: userId, role: 'admin', email: '' });
    // The key acts as the admin the session was: an admin-only route answers.
    expect(await api('GET', '/iac/users', { token: first?.body.key ?? '' })).toMatchObject({ status: 200 });
  });

  it("a member's first session JWT gets a member key; an unregistered organisation gets none", async () => {
    const signing = await loadOrCreateSigningKey(s().stateDir);
    const memberId = `user_jwtkey_member_${run}`;
    const jwt = await mintToken(signing, { userId: memberId, orgId: s().orgId, role: 'member' });
    const created = await api<{ key: string }>('POST', '/api-keys', { token: jwt, body: { name: 'm' } });
    expect(created.status).toBe(201);
    expect(await getUser(s().orgId, memberId)).toMatchObject({ role: 'member' });
    expect(await api('GET', '/iac/users', { token: created.body.key })).toMatchObject({ status: 403 });
    expect(await api('GET', '/api-keys', { token: created.body.key })).toMatchObject({ status: 200 });

    const nowhere = `org_jwtkey_unregistered_${run}`;
    const stranger = await mintToken(signing, { userId: memberId, orgId: nowhere, role: 'member' });
    expect(await api('POST', '/api-keys', { token: stranger, body: { name: 'x' } })).toEqual(
      expect.objectContaining({ status: 409, body: { error: 'ORGANIZATION_NOT_REGISTERED' } }),
    );
    expect(await getUser(nowhere, memberId)).toBeUndefined();
  });

  it('no raw API key is stored anywhere in the table', async () => {
    const created = await api<{ key: string }>('POST', '/api-keys', {
      token: admin(),
      body: { name: 'scan me' },
    });
    const known = [...Object.values(s().apiKeys), created.body.key];
    const rawKey = /ak_[0-9A-Za-z]{38}/;
    let scanned = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db().send(
        new ScanCommand({ TableName: tableName(), ...(start ? { ExclusiveStartKey: start } : {}) }),
      );
      for (const item of page.Items ?? []) {
        const text = JSON.stringify(item);
        expect(text).not.toMatch(rawKey);
        for (const key of known) expect(text).not.toContain(key);
        scanned++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
    expect(scanned).toBeGreaterThan(0);
  });
});

describe('npm run keys', () => {
  const runFile = promisify(execFile);
  const keysCli = (args: string[], env: Record<string, string> = {}) =>
    runFile(
      process.execPath,
      ['--import', 'tsx', join(resolve(__dirname, '..', '..'), 'scripts/keys.ts'), ...args],
      {
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      },
    );

  it('--help prints the usage on stdout and exits 0', async () => {
    const { stdout } = await keysCli(['--help']);
    expect(stdout).toContain('usage: npm run keys -- create --principal');
  });

  it('an unknown key or user is exit 1 with the reason only, not the usage', async () => {
    const args = ['--org', s().orgId, '--state-dir', s().stateDir];
    await expect(keysCli(['revoke', '--id', `key_nope${run}`, ...args])).rejects.toMatchObject({
      code: 1,
      stderr: expect.not.stringContaining('usage:'),
    });
    await expect(keysCli(['create', '--principal', `user_nobody_${run}`, ...args])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`user_nobody_${run} is not a registered user of ${s().orgId}`),
    });
  });

  it('a stack that is not running is said plainly, without a stack trace', async () => {
    await expect(
      keysCli(['list', '--state-dir', join(s().stateDir, 'nowhere')], {
        DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
      }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('cannot reach DynamoDB at http://127.0.0.1:1: is the stack running'),
    });
  });
});

describe('queued team SYNC and DELETE over HTTP', () => {
  interface Operation {
    operationId: string;
    kind: string;
    status: string;
    summary: { added: number; removed: number; invited: number } | null;
    error: unknown;
  }

  /** Polls the operation as a client would, until it has finished (the local worker runs it). */
  async function settled(teamId: string, operationId: string): Promise<Operation> {
    const path = `/iac/teams/${encodeURIComponent(teamId)}/operations/${encodeURIComponent(operationId)}`;
    for (let i = 0; i < 120; i++) {
      const res = await api<Operation>('GET', path, { token: admin() });
      expect(res.status).toBe(200);
      if (res.body.status === 'SUCCEEDED' || res.body.status === 'FAILED') return res.body;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`operation ${operationId} did not finish`);
  }

  it('a sync past the route limits (101 new invitations) answers 202 with a syncId; polling shows it applied by the worker', async () => {
    const team = await newTeam();
    const invitees = Array.from({ length: 101 }, (_, i) => `bulk-${run}-${i}@example.org`);
    const res = await sync(admin(), team.name, [
      { userId: s().users.member },
      ...invitees.map((email) => ({ email })),
    ]);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ success: true, status: 'PENDING', syncId: expect.any(String) });
    const syncId = res.body.syncId as string;

    // Others cannot read it: another organisation's admin, and a member of this one.
    const path = `/iac/teams/${team.id}/operations/${syncId}`;
    expect((await api('GET', path, { token: outsider() })).status).toBe(404);
    expect((await api('GET', path, { token: member() })).status).toBe(403);

    const op = await settled(team.id, syncId);
    expect(op).toMatchObject({
      operationId: syncId,
      kind: 'sync',
      status: 'SUCCEEDED',
      summary: { added: 1, removed: 0, invited: 101 },
      error: null,
    });
    const after = await readTeam(team.id);
    expect(after.members.map((m) => m.userId)).toEqual([s().users.member]);
    expect(after.invitations.map((i) => i.email).sort()).toEqual([...invitees].sort());

    // The same list again is an empty plan, answered inline with the spec's body.
    const again = await sync(admin(), team.id, [
      { userId: s().users.member },
      ...invitees.map((email) => ({ email })),
    ]);
    expect(again).toMatchObject({ status: 200, body: { success: true } });

    // Deleting the team (102 removals, past one transaction) is queued too; the team is gone at once.
    const del = await api<Record<string, unknown>>('DELETE', `/iac/teams/${team.id}`, { token: admin() });
    expect(del.status).toBe(202);
    expect(del.body).toEqual({
      id: team.id,
      deleted: true,
      status: 'PENDING',
      operationId: expect.any(String),
    });
    expect((await api('GET', `/iac/teams/${team.id}`, { token: admin() })).status).toBe(404);
    const deletion = await settled(team.id, del.body.operationId as string);
    expect(deletion).toMatchObject({ kind: 'delete', status: 'SUCCEEDED' });
    const leftovers = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': `ORG#${s().orgId}#TEAM#${team.id}` },
      }),
    );
    expect(leftovers.Items ?? []).toEqual([]);
  }, 90_000);
});

describe('large team SYNC in the request over HTTP', () => {
  // Its own organisation: thousands of users in the demo organisation would crowd every other
  // suite's first page of `/iac/users`.
  const bigOrg = `org_bigsync_${run}`;
  let bigAdmin = '';
  beforeAll(async () => {
    bigAdmin = await freshOrg(bigOrg, `user_bigsync_${run}`, 'Big team sync');
  });

  /** `n` users of the organisation, written straight to the table (16 at a time). */
  async function seedUsers(prefix: string, n: number): Promise<string[]> {
    const ids = Array.from({ length: n }, (_, i) => `user_${prefix}_${i}`);
    const createdAt = new Date().toISOString();
    await mapLimit(ids, 16, (id) =>
      ensureUser({
        id,
        organizationId: bigOrg,
        email: `${id}@big.example.org`,
        name: id,
        role: 'member',
        createdAt,
      }),
    );
    return ids;
  }

  const timed = async (ref: string, members: unknown[]) => {
    const started = performance.now();
    const res = await sync(bigAdmin, ref, members);
    return { ...res, ms: Math.round(performance.now() - started) };
  };

  it('replaces 2,000 members in the request with the spec body, up to the documented 6,000 items; past that, the worker', async () => {
    expect(SYNC_INLINE_LIMITS.items).toBe(6000);
    const ids = await seedUsers(`big${run}`, 3000);
    const team = await newTeam(unique('Team'), bigAdmin);
    const first = ids.slice(0, MAX_SYNC_MEMBERS);
    expect(first).toHaveLength(2000);
    const twoThousand = await timed(
      team.id,
      first.map((userId) => ({ userId })),
    );
    expect({ status: twoThousand.status, body: twoThousand.body }).toEqual({
      status: 200,
      body: { success: true },
    });
    const afterFirst = await readTeam(team.id, bigAdmin);
    expect(afterFirst.members.map((m) => m.userId).sort()).toEqual([...first].sort());
    expect(afterFirst.lastSyncAt).toEqual(expect.any(String));

    // From those 2,000 to the other 1,000 and an invitation: 2,000 + 1,000 + 1 items, one past the
    // limit, so the worker applies it.
    const rest = ids.slice(2000);
    const invitee = `big-${run}@example.org`;
    const queued = await timed(team.id, [...rest.map((userId) => ({ userId })), { email: invitee }]);
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ success: true, status: 'PENDING', syncId: expect.any(String) });

    // Exactly the limit: a team of those 1,000 becomes the first 2,000 (1,000 removed, 2,000 added).
    const other = await newTeam(unique('Team'), bigAdmin);
    expect(
      (
        await sync(
          bigAdmin,
          other.id,
          rest.map((userId) => ({ userId })),
        )
      ).status,
    ).toBe(200);
    const swap = await timed(
      other.id,
      first.map((userId) => ({ userId })),
    );
    expect({ status: swap.status, body: swap.body }).toEqual({ status: 200, body: { success: true } });
    expect((await readTeam(other.id, bigAdmin)).members.map((m) => m.userId).sort()).toEqual(
      [...first].sort(),
    );
    process.stdout.write(
      `team SYNC timings: 2,000 members into an empty team ${twoThousand.ms} ms; 1,000 replaced by 2,000 ${swap.ms} ms\n`,
    );
  }, 300_000);
});
