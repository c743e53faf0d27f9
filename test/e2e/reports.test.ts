import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/db/client';
import { keys } from '../../shared/db/keys';
import { api, listAllPages, session, stackKeys } from '../support/session';

const s = () => session();
const { admin, member } = stackKeys;

interface Report {
  id: string;
  version: number;
  [k: string]: unknown;
}

async function create(token: string, body: Record<string, unknown>) {
  return api<Report>('POST', '/reports', { token, body });
}

/** PATCH /reports/{id} as the admin with `body`, and `If-Match: ifMatch` when given. */
async function patchAsAdmin(id: string, body: unknown, ifMatch?: string) {
  return api<Report>('PATCH', `/reports/${id}`, {
    token: admin(),
    body,
    ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
  });
}

describe('reports over HTTP', () => {
  it('creates a report with defaults and reads it back', async () => {
    const res = await create(member(), { name: 'Cloud spend weekly' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Cloud spend weekly',
      description: '',
      type: 'PRIVATE',
      teamId: null,
      status: 'ACTIVE',
      scheduledPeriod: null,
      widgets: [],
      destinations: [],
      organizationId: s().orgId,
      createdById: s().users.member,
      archivedAt: null,
      version: 1,
    });
    const read = await api<Report>('GET', `/reports/${res.body.id}`, { token: member() });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('PATCH keeps omitted fields and replaces widgets and destinations wholesale', async () => {
    const { body: r } = await create(admin(), {
      name: 'r',
      description: 'keep me',
      widgets: [
        { type: 'TEXT', contentMarkdown: 'a' },
        { type: 'TEXT', contentMarkdown: 'b' },
      ],
      destinations: [{ destinationType: 'EMAIL', destinationValues: ['a@example.com'] }],
    });
    const res = await patchAsAdmin(r.id, {
      widgets: [{ type: 'TEXT', contentMarkdown: 'c' }],
      destinations: [],
    });
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('keep me');
    expect(res.body.widgets).toEqual([{ type: 'TEXT', contentMarkdown: 'c' }]);
    expect(res.body.destinations).toEqual([]);
    expect(res.body.version).toBe(2);
  });

  it('WEEKLY needs a weekday from the body or the stored report', async () => {
    const { body: r } = await create(admin(), { name: 'w' });
    const missing = await patchAsAdmin(r.id, { scheduledPeriod: 'WEEKLY' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: 'VALIDATION_ERROR',
      reason: expect.stringContaining('scheduledWeekday'),
    });
    expect(Array.isArray(missing.body.details)).toBe(true);

    const withDay = await patchAsAdmin(r.id, { scheduledWeekday: 3 });
    expect(withDay.status).toBe(200);
    const weekly = await patchAsAdmin(r.id, { scheduledPeriod: 'WEEKLY' });
    expect(weekly.status).toBe(200);
    expect(weekly.body).toMatchObject({ scheduledPeriod: 'WEEKLY', scheduledWeekday: 3 });
  });

  it.each([
    [{ scheduledWeekday: 7 }, 'scheduledWeekday'],
    [{ scheduledWeekday: -1 }, 'scheduledWeekday'],
    [{ scheduledWeekday: 1.5 }, 'scheduledWeekday'],
    [
      { destinations: [{ destinationType: 'EMAIL', destinationValues: ['not-an-email'] }] },
      'destinations.0.destinationValues.0',
    ],
    [{ widgets: [{ type: 'DIGEST', groupBy: ['a', 'b', 'c'] }] }, 'widgets.0'],
    [{ unknownField: true }, 'unknownField'],
    [{ status: 'PAUSED' }, 'status'],
    [{ name: '' }, 'name'],
  ])('rejects %j with VALIDATION_ERROR naming %s and changes nothing', async (patch, path) => {
    const { body: r } = await create(admin(), { name: 'v' });
    const res = await api<{ error: string; reason: string; details: { path: string }[] }>(
      'PATCH',
      `/reports/${r.id}`,
      {
        token: admin(),
        body: patch,
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.details[0]?.path).toBe(path);
    const after = await api<Report>('GET', `/reports/${r.id}`, { token: admin() });
    expect(after.body).toEqual(r);
  });

  it('accepts the edge values that the rules allow', async () => {
    const { body: r } = await create(admin(), { name: 'edges' });
    for (const day of [0, 6]) {
      const res = await patchAsAdmin(r.id, { scheduledWeekday: day });
      expect(res.status).toBe(200);
    }
    const digest = await patchAsAdmin(r.id, {
      widgets: [{ type: 'DIGEST', groupBy: ['service', 'region'] }],
    });
    expect(digest.status).toBe(200);
  });

  it('archived reports answer 409 REPORT_ARCHIVED to any PATCH, even an invalid one', async () => {
    const { body: r } = await create(admin(), { name: 'a' });
    expect((await api('DELETE', `/reports/${r.id}`, { token: admin() })).status).toBe(200);
    for (const body of [{ status: 'INACTIVE' }, { scheduledWeekday: 99 }]) {
      const res = await patchAsAdmin(r.id, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: 'REPORT_ARCHIVED' });
    }
  });

  it('archived reports answer 409 REPORT_ARCHIVED to a missing, malformed or non-JSON body too; unknown ids stay 404', async () => {
    const { body: r } = await create(admin(), { name: 'archived, any body' });
    expect((await api('DELETE', `/reports/${r.id}`, { token: admin() })).status).toBe(200);
    const json = { 'content-type': 'application/json' };
    const sends = [
      {},
      { rawBody: '', headers: json },
      { rawBody: '{"name": ', headers: json },
      { rawBody: '[1, 2]', headers: json },
      { rawBody: 'null', headers: json },
      { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    ];
    for (const send of sends) {
      const res = await api('PATCH', `/reports/${r.id}`, { token: admin(), ...send });
      expect({ send, status: res.status, body: res.body }).toEqual({
        send,
        status: 409,
        body: { error: 'REPORT_ARCHIVED' },
      });
    }
    // The credential still comes first, and the archived state is no one else's to learn.
    expect((await api('PATCH', `/reports/${r.id}`, { rawBody: '{', headers: json })).status).toBe(401);
    const foreign = await api('PATCH', `/reports/${r.id}`, {
      token: s().apiKeys.outsider,
      rawBody: '{',
      headers: json,
    });
    expect({ status: foreign.status, body: foreign.body }).toEqual({
      status: 404,
      body: { error: 'NOT_FOUND' },
    });
    const unknown = await api('PATCH', '/reports/rep_does_not_exist', { token: admin(), ...sends[2] });
    expect(unknown.status).toBe(404);
    // A report that is not archived still answers the body's own 400s and 415.
    const { body: live } = await create(admin(), { name: 'live, bad body' });
    const patchLive = async (send: (typeof sends)[number]) => {
      const res = await api('PATCH', `/reports/${live.id}`, { token: admin(), ...send });
      return { status: res.status, body: res.body };
    };
    expect(await patchLive({})).toEqual({ status: 400, body: { error: 'Request body is required' } });
    expect(await patchLive(sends[2]!)).toEqual({ status: 400, body: { error: 'Malformed JSON body' } });
    expect(await patchLive(sends[3]!)).toEqual({
      status: 400,
      body: {
        error: 'VALIDATION_ERROR',
        reason: '(body): must be a JSON object',
        details: [{ path: '(body)', message: 'must be a JSON object' }],
      },
    });
    expect((await patchLive(sends[5]!)).status).toBe(415);
    const renamed = await patchAsAdmin(live.id, { name: 'live, renamed' });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'live, renamed' } });
  });

  it('team reports: FORBIDDEN to update and TEAM_MEMBER_REQUIRED to duplicate for non-members', async () => {
    const team = s().teams[0]!.id;
    const { body: r } = await create(admin(), { name: 'team', type: 'PUBLIC', teamId: team });
    const upd = await api('PATCH', `/reports/${r.id}`, { token: member(), body: { name: 'x' } });
    expect(upd.status).toBe(403);
    expect(upd.body).toEqual({ error: 'FORBIDDEN' });
    const dup = await api('POST', `/reports/${r.id}/duplicate`, { token: member(), body: { name: 'copy' } });
    expect(dup.status).toBe(403);
    expect(dup.body).toEqual({ error: 'TEAM_MEMBER_REQUIRED' });
    const byAdmin = await api<{ reportId: string }>('POST', `/reports/${r.id}/duplicate`, {
      token: admin(),
      body: { name: 'copy' },
    });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.reportId).toMatch(/^rep_/);
  });

  it('a member cannot assign a team they are not in', async () => {
    const res = await create(member(), { name: 't', teamId: s().teams[0]!.id });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'TEAM_MEMBER_REQUIRED' });
  });

  it('duplicate: unknown report is NOT_FOUND and an empty name is VALIDATION_ERROR', async () => {
    const missing = await api('POST', '/reports/rep_nope/duplicate', { token: admin(), body: { name: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'NOT_FOUND' });
    const { body: r } = await create(admin(), { name: 'd' });
    const empty = await api('POST', `/reports/${r.id}/duplicate`, { token: admin(), body: { name: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ path: 'name' }] });
  });

  it("another organisation's report is not found, for reads and writes", async () => {
    const { body: r } = await create(admin(), { name: 'mine', type: 'PUBLIC' });
    const outsider = s().apiKeys.outsider;
    for (const [method, path, body] of [
      ['GET', `/reports/${r.id}`, undefined],
      ['PATCH', `/reports/${r.id}`, { name: 'stolen' }],
      ['POST', `/reports/${r.id}/duplicate`, { name: 'stolen' }],
      ['DELETE', `/reports/${r.id}`, undefined],
    ] as const) {
      const res = await api(method, path, { token: outsider, ...(body ? { body } : {}) });
      expect(res.status).toBe(404);
    }
    const after = await api<Report>('GET', `/reports/${r.id}`, { token: admin() });
    expect(after.body).toEqual(r);
  });

  it('malformed JSON is a 400 {error}; a bad credential is a 401 {error}', async () => {
    const bad = await api('POST', '/reports', {
      token: admin(),
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: expect.any(String) });
    const unauth = await api('GET', '/reports', { token: 'ak_notakey' });
    expect(unauth.status).toBe(401);
    expect(unauth.body).toEqual({ error: 'Unauthorized' });
  });

  it('a body that is not a JSON object is a 400 VALIDATION_ERROR and changes nothing', async () => {
    const { body: r } = await create(admin(), { name: 'not an object' });
    for (const rawBody of ['[]', '[{"name":"x"}]', '"x"', '1', 'null']) {
      const res = await api('PATCH', `/reports/${r.id}`, {
        token: admin(),
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expect({ rawBody, status: res.status, body: res.body }).toEqual({
        rawBody,
        status: 400,
        body: {
          error: 'VALIDATION_ERROR',
          reason: '(body): must be a JSON object',
          details: [{ path: '(body)', message: 'must be a JSON object' }],
        },
      });
    }
    const dup = await api('POST', `/reports/${r.id}/duplicate`, {
      token: admin(),
      rawBody: '[]',
      headers: { 'content-type': 'application/json' },
    });
    expect([dup.status, (dup.body as { error?: string }).error]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await api<Report>('GET', `/reports/${r.id}`, { token: admin() })).body).toEqual(r);
  });

  it('a stale If-Match gets 409 and leaves the report unchanged', async () => {
    const { body: r } = await create(admin(), { name: 'lock' });
    const first = await patchAsAdmin(r.id, { name: 'one' }, '"1"');
    expect(first.status).toBe(200);
    const stale = await patchAsAdmin(r.id, { name: 'two' }, '"1"');
    expect(stale.status).toBe(409);
    expect((await api<Report>('GET', `/reports/${r.id}`, { token: admin() })).body.name).toBe('one');
  });

  it('lists visible reports with pagination and hides archived ones unless asked', async () => {
    const { body: a } = await create(member(), { name: 'list-a' });
    const { body: b } = await create(member(), { name: 'list-b' });
    await api('DELETE', `/reports/${a.id}`, { token: member() });
    const seen = (await listAllPages<Report>(member(), '/reports', '', 5)).map((i) => i.id);
    expect(seen).toContain(b.id);
    expect(seen).not.toContain(a.id);
    const withArchived = await api<{ items: Report[] }>('GET', '/reports?limit=100&includeArchived=true', {
      token: member(),
    });
    expect(withArchived.body.items.map((i) => i.id)).toContain(a.id);
    const bad = await api('GET', '/reports?cursor=garbage', { token: member() });
    expect(bad.status).toBe(400);
  });
  it('PATCH of part of `context` keeps the context fields it does not name', async () => {
    const { body: r } = await create(admin(), {
      name: 'ctx',
      context: {
        metricId: 'effective_cost',
        groupBy: ['service'],
        datePreset: 'LAST_3_MONTHS',
        currency: 'EUR',
      },
    });
    const res = await patchAsAdmin(r.id, { context: { metricId: 'cost' } });
    expect(res.status).toBe(200);
    expect(res.body.context).toEqual({
      metricId: 'cost',
      groupBy: ['service'],
      datePreset: 'LAST_3_MONTHS',
      currency: 'EUR',
    });
    const cleared = await patchAsAdmin(r.id, { context: { groupBy: null, currency: null } });
    expect(cleared.body.context).toEqual({
      metricId: 'cost',
      groupBy: null,
      datePreset: 'LAST_3_MONTHS',
      currency: null,
    });
    const bad = await patchAsAdmin(r.id, { context: { nope: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ path: 'context.nope' }] });
  });

  it('a PATCH that changes nothing writes nothing: same version and updatedAt', async () => {
    const { body: r } = await create(admin(), {
      name: 'still',
      widgets: [{ type: 'TEXT', contentMarkdown: 'x' }],
    });
    for (const body of [{}, { name: 'still', widgets: [{ type: 'TEXT', contentMarkdown: 'x' }] }]) {
      const res = await patchAsAdmin(r.id, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(r);
      expect(res.headers.get('etag')).toBe('"1"');
    }
    const changed = await patchAsAdmin(r.id, { name: 'moved' });
    expect(changed.body.version).toBe(2);
  });

  it('If-Match: * means any version, like dashboards and enrichments; a malformed one is 400', async () => {
    const { body: r } = await create(admin(), { name: 'star' });
    const any = await patchAsAdmin(r.id, { name: 'starred' }, '*');
    expect(any.status).toBe(200);
    expect(any.body.name).toBe('starred');
    const weak = await patchAsAdmin(r.id, { name: 'weak' }, 'W/"2"');
    expect(weak.status).toBe(200);
    const bad = await patchAsAdmin(r.id, { name: 'x' }, 'abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'VALIDATION_ERROR' });
  });

  it('duplicate trims the name, as create does: a blank name is VALIDATION_ERROR', async () => {
    const { body: r } = await create(admin(), { name: 'src' });
    const blank = await api('POST', `/reports/${r.id}/duplicate`, { token: admin(), body: { name: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ path: 'name' }] });
    const padded = await api<{ reportId: string }>('POST', `/reports/${r.id}/duplicate`, {
      token: admin(),
      body: { name: '  Copy  ' },
    });
    expect(padded.status).toBe(201);
    const copy = await api<Report>('GET', `/reports/${padded.body.reportId}`, { token: admin() });
    expect(copy.body.name).toBe('Copy');
  });

  it('a team being deleted cannot be assigned to a report', async () => {
    const team = await api<{ id: string }>('POST', '/iac/teams', {
      token: admin(),
      body: { name: `Leaving ${Math.random().toString(36).slice(2, 8)}` },
    });
    expect(team.status).toBe(201);
    // A DELETE that died part-way leaves the team marked `deletingAt`.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.team(s().orgId, team.body.id),
        UpdateExpression: 'SET deletingAt = :at',
        ExpressionAttributeValues: { ':at': new Date().toISOString() },
      }),
    );
    const res = await create(admin(), { name: 'orphan', teamId: team.body.id });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ path: 'teamId' }] });
  });

  it('fills a page past reports the caller may not see', async () => {
    // Three of the member's own reports, then six private ones of the admin in front of them
    // (the list is newest first): a page of 3 must read past the six.
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push((await create(member(), { name: `behind-private-${i}` })).body.id);
    for (let i = 0; i < 6; i++) await create(admin(), { name: `private-${i}` });
    const page = await api<{ items: Report[]; nextCursor: string | null }>('GET', '/reports?limit=3', {
      token: member(),
    });
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(3);
    for (const r of page.body.items)
      expect(r.type !== 'PRIVATE' || r.createdById === s().users.member).toBe(true);
    expect(page.body.nextCursor).not.toBeNull();
  });

  it('accepts the Bearer scheme in any letter case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const res = await api('GET', '/reports?limit=1', {
        headers: { authorization: `${scheme} ${member()}` },
      });
      expect(res.status).toBe(200);
    }
    const wrong = await api('GET', '/reports?limit=1', { headers: { authorization: `Basic ${member()}` } });
    expect(wrong.status).toBe(401);
  });

  it.each(['0', '101', '100000', 'ten', '-1'])('answers limit=%s with one clear message', async (limit) => {
    const res = await api<{ error: string }>('GET', `/reports?limit=${limit}`, { token: member() });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid query: limit: must be a whole number from 1 to 100');
  });

  it("refuses a cursor that points into another organisation's reports, or that lacks key fields", async () => {
    const forge = (key: Record<string, string>) => Buffer.from(JSON.stringify(key)).toString('base64url');
    const foreign = forge({
      gsi1pk: `ORG#${s().otherOrgId}#REPORTS`,
      gsi1sk: 'z',
      pk: `ORG#${s().otherOrgId}#REPORT#x`,
      sk: 'META',
    });
    const partial = forge({ gsi1pk: `ORG#${s().orgId}#REPORTS` });
    for (const cursor of [foreign, partial]) {
      const res = await api('GET', `/reports?cursor=${cursor}`, { token: admin() });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid cursor' });
    }
  });
});
