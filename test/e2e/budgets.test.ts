import { budgetBody } from '../fixtures/budgets/body';
import { api, listAllPages, session, stackKeys } from '../support/session';

const s = () => session();
const { admin, member, outsider } = stackKeys;

interface Line {
  value: string | null;
  owner: string | null;
  amounts: Record<string, number>;
}
interface Budget {
  id: string;
  organizationId: string;
  name: string;
  currency: string;
  metricId: string;
  groupBy: string | null;
  lines: Line[];
  versionId: string;
  versionNumber: number;
  createdById: string;
  createdAt: string;
  archivedAt: string | null;
  [k: string]: unknown;
}
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

let seq = 0;
const unique = (label: string) => `${label} ${Date.now().toString(36)}-${++seq}`;

async function createOk(token: string, body: Record<string, unknown>): Promise<Budget> {
  const res = await api<Budget>('POST', '/budgets', { token, body });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return res.body;
}

const listAll = (token: string, query = '') => listAllPages<Budget>(token, '/budgets', query);

const byService = (name: string) =>
  budgetBody({
    name,
    groupBy: 'service',
    startMonth: '2026-01',
    lines: [
      { value: 'AmazonEC2', owner: 'ops@example.com', amounts: { '2026-02': 500, '2026-01': 400 } },
      { value: 'AmazonS3', owner: null, amounts: { '2026-01': 50 } },
    ],
  });

describe('POST /budgets', () => {
  it('answers 201 with the record as version 1, defaults filled in, months in order', async () => {
    const name = unique('Create');
    const res = await api<Budget>('POST', '/budgets', { token: admin(), body: byService(name) });
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^bud_/),
      organizationId: s().orgId,
      name,
      description: '',
      currency: 'USD',
      metricId: 'cost',
      scopeId: null,
      whereClause: null,
      groupBy: 'service',
      startMonth: '2026-01',
      lines: [
        { value: 'AmazonEC2', owner: 'ops@example.com', amounts: { '2026-01': 400, '2026-02': 500 } },
        { value: 'AmazonS3', owner: null, amounts: { '2026-01': 50 } },
      ],
      versionId: expect.stringMatching(/^bver_/),
      versionNumber: 1,
      createdById: expect.any(String),
      createdAt: expect.any(String),
      updatedById: res.body.createdById,
      updatedAt: res.body.createdAt,
      archivedAt: null,
    });
    const read = await api<Budget>('GET', `/budgets/${res.body.id}`, { token: member() });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it.each([
    [
      'a month before startMonth',
      { lines: [{ value: null, amounts: { '2025-12': 1 } }] },
      /lines\.0\.amounts\.2025-12/,
    ],
    ['a 37th month', { lines: [{ value: null, amounts: { '2029-01': 1 } }] }, /lines\.0\.amounts\.2029-01/],
    ['no month', { lines: [{ value: null, amounts: {} }] }, /lines\.0\.amounts/],
    [
      'two lines without groupBy',
      {
        lines: [
          { value: null, amounts: { '2026-01': 1 } },
          { value: null, amounts: { '2026-01': 1 } },
        ],
      },
      /lines/,
    ],
    [
      'a valued line without groupBy',
      { lines: [{ value: 'x', amounts: { '2026-01': 1 } }] },
      /lines\.0\.value/,
    ],
    [
      'the same value twice',
      {
        groupBy: 'service',
        lines: [
          { value: 'a', amounts: { '2026-01': 1 } },
          { value: 'a', amounts: { '2026-01': 1 } },
        ],
      },
      /lines\.1\.value/,
    ],
    [
      'a null line with groupBy',
      { groupBy: 'service', lines: [{ value: null, amounts: { '2026-01': 1 } }] },
      /lines\.0\.value/,
    ],
    ['a negative amount', { lines: [{ value: null, amounts: { '2026-01': -1 } }] }, /lines\.0\.amounts/],
    [
      'a month that is no month',
      { lines: [{ value: null, amounts: { '2026-13': 1 } }] },
      /lines\.0\.amounts/,
    ],
    ['an unknown currency', { currency: 'CHF' }, /currency/],
    ['an unknown metric', { metricId: 'usage' }, /metricId/],
    [
      'an owner that is neither id nor e-mail',
      { lines: [{ value: null, owner: 'a b', amounts: { '2026-01': 1 } }] },
      /owner/,
    ],
    ['a server-owned field', { versionNumber: 5 }, /versionNumber/],
  ])('400 naming the field for %s, and nothing stored', async (_label, overrides, field) => {
    const name = unique('Bad');
    const res = await api<{ error: string }>('POST', '/budgets', {
      token: admin(),
      body: budgetBody({ name, ...overrides }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(field);
    expect((await listAll(admin())).filter((b) => b.name === name)).toEqual([]);
  });

  it('accepts 36 months from startMonth', async () => {
    const amounts = Object.fromEntries(
      Array.from({ length: 36 }, (_, i) => [
        `${2026 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`,
        i,
      ]),
    );
    const b = await createOk(
      admin(),
      budgetBody({ name: unique('Long'), lines: [{ value: null, amounts }] }),
    );
    expect(Object.keys(b.lines[0]?.amounts ?? {})).toHaveLength(36);
  });
});

describe('GET /budgets', () => {
  it("lists the organisation's active budgets newest first; another organisation sees none of them", async () => {
    const first = await createOk(admin(), budgetBody({ name: unique('List A') }));
    const second = await createOk(member(), budgetBody({ name: unique('List B') }));
    const ids = (await listAll(member())).map((b) => b.id);
    expect(ids.indexOf(second.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(first.id)).toBeGreaterThan(ids.indexOf(second.id));
    const theirs = (await listAll(outsider())).map((b) => b.id);
    expect(theirs.filter((id) => id === first.id || id === second.id)).toEqual([]);
    const page = await api<Page<Budget>>('GET', '/budgets?limit=1', { token: admin() });
    expect(page.body.items).toHaveLength(1);
    expect(page.body.nextCursor).toEqual(expect.any(String));
  });
});

describe('PUT /budgets/{id}', () => {
  it('saves a new version; the versions list keeps each as it was saved, newest first', async () => {
    const b = await createOk(admin(), byService(unique('Versioned')));
    const body = byService(`${b.name} v2`);
    (body.lines as Line[])[0] = {
      value: 'AmazonEC2',
      owner: 'lead@example.com',
      amounts: { '2026-01': 999 },
    };
    const put = await api<Budget>('PUT', `/budgets/${b.id}`, {
      token: admin(),
      body,
      headers: { 'if-match': '"1"' },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBe('"2"');
    expect(put.body).toMatchObject({
      id: b.id,
      versionNumber: 2,
      createdAt: b.createdAt,
      name: `${b.name} v2`,
    });
    expect(put.body.versionId).not.toBe(b.versionId);
    expect(put.body.lines[0]).toEqual({
      value: 'AmazonEC2',
      owner: 'lead@example.com',
      amounts: { '2026-01': 999 },
    });

    const versions = await api<Page<Record<string, unknown>>>('GET', `/budgets/${b.id}/versions`, {
      token: member(),
    });
    expect(versions.status).toBe(200);
    expect(versions.body.items.map((v) => [v.versionNumber, v.versionId, v.name])).toEqual([
      [2, put.body.versionId, `${b.name} v2`],
      [1, b.versionId, b.name],
    ]);
    expect(versions.body.items[1]?.lines).toEqual(b.lines);
  });

  it('a stale If-Match is 409 VERSION_CONFLICT and changes nothing', async () => {
    const b = await createOk(admin(), budgetBody({ name: unique('Stale') }));
    const put = (name: string, ifMatch: string) =>
      api<Budget>('PUT', `/budgets/${b.id}`, {
        token: admin(),
        body: budgetBody({ name }),
        headers: { 'if-match': ifMatch },
      });
    expect((await put('second', '"1"')).status).toBe(200);
    const stale = await put('lost', '"1"');
    expect({ status: stale.status, body: stale.body }).toEqual({
      status: 409,
      body: { error: 'VERSION_CONFLICT' },
    });
    const read = await api<Budget>('GET', `/budgets/${b.id}`, { token: admin() });
    expect(read.body).toMatchObject({ name: 'second', versionNumber: 2 });
    const versions = await api<Page<Budget>>('GET', `/budgets/${b.id}/versions`, { token: admin() });
    expect(versions.body.items).toHaveLength(2);
  });

  it('concurrent saves without If-Match all land, each as its own version', async () => {
    const b = await createOk(admin(), budgetBody({ name: unique('Race') }));
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        api<Budget>('PUT', `/budgets/${b.id}`, { token: admin(), body: budgetBody({ name: `race ${i}` }) }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.body.versionNumber).sort()).toEqual([2, 3, 4, 5, 6]);
    const versions = await api<Page<Budget>>('GET', `/budgets/${b.id}/versions`, { token: admin() });
    expect(versions.body.items.map((v) => v.versionNumber)).toEqual([6, 5, 4, 3, 2, 1]);
  });

  it("a member may change their own budget, not an admin's (403); an admin may change any", async () => {
    const mine = await createOk(member(), budgetBody({ name: unique('Mine') }));
    const theirs = await createOk(admin(), budgetBody({ name: unique('Theirs') }));
    expect(
      (await api('PUT', `/budgets/${mine.id}`, { token: member(), body: budgetBody({ name: 'm2' }) })).status,
    ).toBe(200);
    const refused = await api('PUT', `/budgets/${theirs.id}`, {
      token: member(),
      body: budgetBody({ name: 'no' }),
    });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: { error: 'FORBIDDEN' },
    });
    expect((await api('DELETE', `/budgets/${theirs.id}`, { token: member() })).status).toBe(403);
    expect((await api<Budget>('GET', `/budgets/${theirs.id}`, { token: admin() })).body.versionNumber).toBe(
      1,
    );
    expect(
      (await api('PUT', `/budgets/${mine.id}`, { token: admin(), body: budgetBody({ name: 'a2' }) })).status,
    ).toBe(200);
  });

  it("another organisation's budget is 404 on every route", async () => {
    const b = await createOk(admin(), budgetBody({ name: unique('Hidden') }));
    for (const [method, path, body] of [
      ['GET', `/budgets/${b.id}`, undefined],
      ['PUT', `/budgets/${b.id}`, budgetBody({ name: 'x' })],
      ['DELETE', `/budgets/${b.id}`, undefined],
      ['GET', `/budgets/${b.id}/versions`, undefined],
    ] as const) {
      const res = await api(method, path, { token: outsider(), ...(body ? { body } : {}) });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
    expect((await api<Budget>('GET', `/budgets/${b.id}`, { token: admin() })).body).toEqual(b);
  });
});

describe('DELETE /budgets/{id}', () => {
  it('archives (idempotent): gone from the list, in archived=true, and no longer saved over (409)', async () => {
    const b = await createOk(admin(), budgetBody({ name: unique('Archive') }));
    const del = await api<Budget>('DELETE', `/budgets/${b.id}`, { token: admin() });
    expect(del.status).toBe(200);
    expect(del.body.archivedAt).toEqual(expect.any(String));
    expect(del.body.versionNumber).toBe(1);
    const again = await api<Budget>('DELETE', `/budgets/${b.id}`, { token: admin() });
    expect(again.body).toEqual(del.body);
    expect((await listAll(admin())).map((x) => x.id)).not.toContain(b.id);
    expect((await listAll(admin(), '&archived=true')).map((x) => x.id)).toContain(b.id);
    const put = await api('PUT', `/budgets/${b.id}`, { token: admin(), body: budgetBody() });
    expect({ status: put.status, body: put.body }).toEqual({
      status: 409,
      body: { error: 'BUDGET_ARCHIVED' },
    });
    expect((await api<Budget>('GET', `/budgets/${b.id}`, { token: admin() })).body).toEqual(del.body);
  });
});

describe('CSV export and import of the lines × months grid', () => {
  const raw = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s().baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin()}`, ...headers },
      ...(body !== undefined ? { body } : {}),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  it('exports every month from startMonth to the last with an amount, quoting where needed', async () => {
    const b = await createOk(
      admin(),
      budgetBody({
        name: unique('Export'),
        groupBy: 'service',
        startMonth: '2026-01',
        lines: [
          { value: 'Amazon, "EC2"', owner: 'ops@example.com', amounts: { '2026-03': 12.5, '2026-01': 10 } },
          { value: 'AmazonS3', owner: null, amounts: { '2026-02': 3 } },
        ],
      }),
    );
    const res = await raw('GET', `/budgets/${b.id}/export.csv`);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/csv/);
    expect(res.text).toBe(
      'value,owner,2026-01,2026-02,2026-03\r\n"Amazon, ""EC2""",ops@example.com,10,,12.5\r\nAmazonS3,,,3,\r\n',
    );
    expect((await api('GET', `/budgets/${b.id}/export.csv`, { token: outsider() })).status).toBe(404);
  });

  it('an import saves a new version with the grid as lines (If-Match honoured); export → import round-trips', async () => {
    const b = await createOk(admin(), byService(unique('Import')));
    const csv = 'value,owner,2026-03,2026-01\r\nAmazonEC2,lead@example.com,7,"1.5"\nAmazonRDS,,,2\n';
    const stale = await raw('POST', `/budgets/${b.id}/import`, csv, {
      'content-type': 'text/csv',
      'if-match': '"9"',
    });
    expect(stale.status).toBe(409);
    const res = await raw('POST', `/budgets/${b.id}/import`, csv, {
      'content-type': 'text/csv',
      'if-match': '"1"',
    });
    expect(res.status).toBe(200);
    const saved = JSON.parse(res.text) as Budget;
    expect(saved.versionNumber).toBe(2);
    expect(saved.name).toBe(b.name);
    expect(saved.lines).toEqual([
      { value: 'AmazonEC2', owner: 'lead@example.com', amounts: { '2026-01': 1.5, '2026-03': 7 } },
      { value: 'AmazonRDS', owner: null, amounts: { '2026-01': 2 } },
    ]);
    const exported = await raw('GET', `/budgets/${b.id}/export.csv`);
    const again = await raw('POST', `/budgets/${b.id}/import`, exported.text, { 'content-type': 'text/csv' });
    expect(again.status).toBe(200);
    expect((JSON.parse(again.text) as Budget).lines).toEqual(saved.lines);
  });

  it('each bad cell is named with its row and column, and nothing is saved', async () => {
    const b = await createOk(admin(), byService(unique('Bad CSV')));
    const csv = 'value,owner,2026-01,2026-13\r\nAmazonEC2,,abc,1\r\nAmazonS3,,-4,\r\n';
    const res = await raw('POST', `/budgets/${b.id}/import`, csv, { 'content-type': 'text/csv' });
    expect(res.status).toBe(400);
    const error = (JSON.parse(res.text) as { error: string }).error;
    expect(error).toContain('row 1, column D: "2026-13" is not a month YYYY-MM');
    expect(error).toContain('row 2, column C (2026-01): "abc" is not a number');
    expect(error).toContain('row 3, column C (2026-01): "-4" is not a number');
    const dup = await raw(
      'POST',
      `/budgets/${b.id}/import`,
      'value,owner,2026-01\nAmazonEC2,,1\nAmazonEC2,,2\n',
      {
        'content-type': 'text/csv',
      },
    );
    expect(dup.status).toBe(400);
    expect(JSON.parse(dup.text).error).toMatch(/row 3 \(value\): AmazonEC2 has a line already/);
    const read = await api<Budget>('GET', `/budgets/${b.id}`, { token: admin() });
    expect(read.body).toEqual(b);
  });
});
