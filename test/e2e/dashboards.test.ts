import { randomBytes } from 'node:crypto';
import { DASHBOARD_DEFAULTS } from '../fixtures/dashboards/defaults';
import { condition, cost, formula, metric } from '../fixtures/dashboards/queries';
import { realisticDashboard, simpleWidget } from '../fixtures/dashboards/realistic';
import { datasourcesForQueries } from '../support/explorer-http';
import { api, listAllPages, session, stackKeys } from '../support/session';

const s = () => session();
const { admin, member, outsider } = stackKeys;

interface Dashboard {
  id: string;
  version: number;
  publishedVersion: number;
  widgetCount: number;
  archivedAt: string | null;
  widgets: Record<string, unknown>[];
  [k: string]: unknown;
}
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
interface VersionSummary {
  dashboardId: string;
  version: number;
  widgetCount: number;
  createdById: string;
}

let seq = 0;
const unique = (label: string) => `${label} ${Date.now().toString(36)}-${++seq}`;

async function create(token: string, body: Record<string, unknown>) {
  return api<Dashboard>('POST', '/dashboard-v2', { token, body });
}

async function createOk(token: string, body: Record<string, unknown>): Promise<Dashboard> {
  const res = await create(token, body);
  expect(res.status).toBe(201);
  return res.body;
}

const publish = (
  token: string,
  id: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) => api<Dashboard>('PUT', `/dashboard-v2/${id}`, { token, body, ...(headers ? { headers } : {}) });

/** Every dashboard of the org visible to `token`, across all pages. */
const listAll = (token: string, query = '') => listAllPages<Dashboard>(token, '/dashboard-v2', query);

describe('dashboards over HTTP: create and read', () => {
  it('creates version 1 with every default stored, and reads the same record back', async () => {
    const name = unique('Minimal');
    const res = await create(member(), { name, widgets: [simpleWidget('k1')] });
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.body).toMatchObject({
      name,
      ...DASHBOARD_DEFAULTS,
      organizationId: s().orgId,
      createdById: s().users.member,
      archivedAt: null,
      version: 1,
      publishedVersion: 1,
      widgetCount: 1,
    });
    const widget = res.body.widgets[0] as {
      description: string;
      source: { request: { queries: unknown[] } };
    };
    expect(widget.description).toBe('');
    expect(widget.source.request.queries[0]).toEqual({
      type: 'cost',
      name: 'a',
      colorIndex: 0,
      chartType: 'BAR',
      visible: true,
      extendDashboardConditions: true,
      colorPalette: 'DEFAULT',
    });
    const read = await api<Dashboard>('GET', `/dashboard-v2/${res.body.id}`, { token: member() });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('round-trips a 200-widget realistic dashboard exactly, defaults filled in, through create, publish and history', async () => {
    const ds = await api<{ id: string }>('POST', '/iac/metricsDatasources', {
      token: admin(),
      body: { name: unique('requests') },
    });
    expect(ds.status).toBe(201);
    const fixture = realisticDashboard(200, 7, unique('Realistic'), ds.body.id);
    const created = await createOk(admin(), fixture.body);
    expect(created).toMatchObject({ ...fixture.expected, widgetCount: 200 });

    const read = await api<Dashboard>('GET', `/dashboard-v2/${created.id}`, { token: member() });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject(fixture.expected);
    expect(read.body.widgets).toEqual(fixture.expected.widgets);

    const next = realisticDashboard(200, 8, fixture.body.name as string, ds.body.id);
    const published = await publish(admin(), created.id, { ...next.body, version: created.version });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ ...next.expected, version: 2, publishedVersion: 2 });
    const reread = await api<Dashboard>('GET', `/dashboard-v2/${created.id}`, { token: admin() });
    expect(reread.body.widgets).toEqual(next.expected.widgets);

    const v1 = await api<Dashboard>('GET', `/dashboard-v2/${created.id}/versions/1`, { token: member() });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({
      ...fixture.expected,
      dashboardId: created.id,
      version: 1,
      widgetCount: 200,
    });
    expect(v1.body.widgets).toEqual(fixture.expected.widgets);
  });

  it('stores a version too large for one item across several parts and reads it back intact', async () => {
    // Random text does not compress: about 800 KB of JSON stays about 600 KB gzipped.
    const widgets = Array.from({ length: 200 }, (_, i) => ({
      ...simpleWidget(`big${i}`),
      description: randomBytes(3000).toString('base64').slice(0, 4000),
    }));
    const created = await createOk(admin(), { name: unique('Incompressible'), widgets });
    const read = await api<Dashboard>('GET', `/dashboard-v2/${created.id}`, { token: admin() });
    expect(read.status).toBe(200);
    expect(read.body.widgets.map((w) => w.description)).toEqual(widgets.map((w) => w.description));
  });

  it("answers another organisation's dashboard as not found, on every route", async () => {
    const d = await createOk(admin(), { name: unique('Ours'), type: 'PUBLIC' });
    const calls = [
      api('GET', `/dashboard-v2/${d.id}`, { token: outsider() }),
      api('GET', `/dashboard-v2/${d.id}/versions`, { token: outsider() }),
      api('GET', `/dashboard-v2/${d.id}/versions/1`, { token: outsider() }),
      publish(outsider(), d.id, { name: 'hijack' }),
      api('PATCH', `/dashboard-v2/${d.id}`, { token: outsider(), body: { name: 'hijack' } }),
      api('DELETE', `/dashboard-v2/${d.id}`, { token: outsider() }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'NOT_FOUND' });
    }
    const theirs = await listAll(outsider());
    expect(theirs.some((x) => x.id === d.id)).toBe(false);
    const still = await api<Dashboard>('GET', `/dashboard-v2/${d.id}`, { token: admin() });
    expect(still.body).toMatchObject({ name: d.name, version: 1, archivedAt: null });
  });
});

describe('dashboards over HTTP: validation', () => {
  const query = (q: Record<string, unknown>) => ({
    name: unique('Limits'),
    widgets: [
      simpleWidget('w', {
        queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'BAR', ...q }],
      }),
    ],
  });
  const queryPath = 'widgets.0.source.request.queries.0';

  // The spec's Limits table, as it applies to dashboards: each rule accepted at its edge and refused past it.
  const limits: { rule: string; ok: Record<string, unknown>; bad: Record<string, unknown>; path: string }[] =
    [
      {
        rule: 'alias 1 character',
        ok: query({ alias: 'x' }),
        bad: query({ alias: '' }),
        path: `${queryPath}.alias`,
      },
      {
        rule: 'alias 50 characters',
        ok: query({ alias: 'x'.repeat(50) }),
        bad: query({ alias: 'x'.repeat(51) }),
        path: `${queryPath}.alias`,
      },
      {
        rule: 'name pattern',
        ok: query({ name: '_cost_2' }),
        bad: query({ name: '2cost' }),
        path: `${queryPath}.name`,
      },
      {
        rule: 'name pattern (no dashes)',
        ok: query({ name: 'Cost_A' }),
        bad: query({ name: 'cost-a' }),
        path: `${queryPath}.name`,
      },
      {
        rule: 'condition expression min 1',
        // The query is its own widget's only one: a constant, since `a` would refer to itself.
        ok: query({ type: 'condition', expression: '1' }),
        bad: query({ type: 'condition', expression: '' }),
        path: `${queryPath}.expression`,
      },
      {
        rule: 'rollingAggregation.window.relativeDays min 1 (metric)',
        ok: query({
          type: 'metric',
          metricId: 'Hours', // a usage metric (consumed unit) of the seeded demo data
          aggregator: 'SUM',
          rollingAggregation: { aggregator: 'SUM', window: { relativeDays: 1 } },
        }),
        bad: query({
          type: 'metric',
          metricId: 'Hours',
          aggregator: 'SUM',
          rollingAggregation: { aggregator: 'SUM', window: { relativeDays: 0 } },
        }),
        path: `${queryPath}.rollingAggregation.window.relativeDays`,
      },
      {
        rule: 'rollingAggregation.window.relativeDays min 1 (formula)',
        ok: query({
          type: 'formula',
          formula: '2',
          rollingAggregation: { aggregator: 'AVG', window: { relativeDays: 1 } },
        }),
        bad: query({
          type: 'formula',
          formula: '2',
          rollingAggregation: { aggregator: 'AVG', window: { relativeDays: 0 } },
        }),
        path: `${queryPath}.rollingAggregation.window.relativeDays`,
      },
      {
        rule: 'period.forecastDays min 0',
        ok: {
          name: unique('F'),
          widgets: [simpleWidget('w', { period: { aggBy: 'Day', forecastDays: 0 } })],
        },
        bad: {
          name: unique('F'),
          widgets: [simpleWidget('w', { period: { aggBy: 'Day', forecastDays: -1 } })],
        },
        path: 'widgets.0.source.request.period.forecastDays',
      },
    ];

  it.each(limits)(
    '$rule: accepted at the edge, refused past it with the field path',
    async ({ ok, bad, path }) => {
      const accepted = await create(member(), ok);
      expect(accepted.status).toBe(201);
      const refused = await create(member(), bad);
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body as object)).toEqual(['error']);
      expect((refused.body as unknown as { error: string }).error).toContain(`${path}:`);
    },
  );

  it('refuses query names used twice within one request', async () => {
    const res = await create(member(), {
      name: unique('Dupes'),
      widgets: [
        simpleWidget('w', {
          queries: [
            { type: 'cost', name: 'a', colorIndex: 0, chartType: 'BAR' },
            { type: 'formula', name: 'a', colorIndex: 1, chartType: 'LINE', formula: 'a * 2' },
          ],
        }),
      ],
    });
    expect(res.status).toBe(400);
    expect((res.body as unknown as { error: string }).error).toContain(
      'widgets.0.source.request.queries.1.name',
    );
  });

  it.each(['organizationId', 'createdById', 'archivedAt', 'id', 'publishedVersion', 'colour'])(
    'refuses the field %s in a create body (no mass assignment)',
    async (field) => {
      const res = await create(member(), { name: unique('Mass'), [field]: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(field) });
    },
  );

  it('refuses server-owned fields in publish and PATCH bodies too', async () => {
    const d = await createOk(member(), { name: unique('Owned') });
    const put = await publish(member(), d.id, { name: 'x', organizationId: s().otherOrgId });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ error: expect.stringContaining('organizationId') });
    const patch = await api('PATCH', `/dashboard-v2/${d.id}`, {
      token: member(),
      body: { createdById: s().users.admin },
    });
    expect(patch.status).toBe(400);
    const read = await api<Dashboard>('GET', `/dashboard-v2/${d.id}`, { token: member() });
    expect(read.body).toMatchObject({ organizationId: s().orgId, createdById: s().users.member, version: 1 });
  });

  it('refuses an unknown widget source type and an unknown query type, naming the path', async () => {
    const badSource = await create(member(), {
      name: unique('Src'),
      widgets: [{ ...simpleWidget('w'), source: { type: 'markdown', request: {} } }],
    });
    expect(badSource.status).toBe(400);
    expect((badSource.body as unknown as { error: string }).error).toContain('widgets.0.source.type');
    const badQuery = await create(member(), {
      name: unique('Q'),
      widgets: [
        simpleWidget('w', { queries: [{ type: 'sql', name: 'a', colorIndex: 0, chartType: 'BAR' }] }),
      ],
    });
    expect(badQuery.status).toBe(400);
    expect((badQuery.body as unknown as { error: string }).error).toContain('queries.0.type');
  });

  it('answers 413 past the widget cap, and writes nothing', async () => {
    const d = await createOk(member(), { name: unique('Cap'), widgets: [simpleWidget('a')] });
    const widgets = Array.from({ length: 501 }, (_, i) => simpleWidget(`w${i}`));
    const put = await publish(member(), d.id, { name: d.name as string, widgets, version: 1 });
    expect(put.status).toBe(413);
    expect(put.body).toEqual({ error: expect.stringContaining('500 widgets') });
    const read = await api<Dashboard>('GET', `/dashboard-v2/${d.id}`, { token: member() });
    expect(read.body).toMatchObject({ version: 1, publishedVersion: 1, widgetCount: 1 });
    const versions = await api<Page<VersionSummary>>('GET', `/dashboard-v2/${d.id}/versions`, {
      token: member(),
    });
    expect(versions.body.items.map((v) => v.version)).toEqual([1]);

    const name = unique('TooBig');
    const post = await create(member(), { name, widgets });
    expect(post.status).toBe(413);
    expect((await listAll(member())).some((x) => x.name === name)).toBe(false);
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const res = await create(member(), { name: unique('Huge'), description: 'x'.repeat(1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('dashboards over HTTP: formulas, conditions and metric queries are checked at save time', () => {
  const body = (...queryLists: Record<string, unknown>[][]) => ({
    name: unique('Checked'),
    widgets: queryLists.map((queries, i) => simpleWidget(`k${i + 1}`, { queries })),
  });
  const errorOf = (res: { body: unknown }) => (res.body as { error: string }).error;

  let datasource: string;
  let archived: string;
  let otherOrgDatasource: string;
  let usageUnit: string;

  beforeAll(async () => {
    ({ datasource, archived, otherOrgDatasource, usageUnit } = await datasourcesForQueries(unique));
  });

  it('refuses a formula naming an unknown query with 400 naming widget, query and position; nothing is stored', async () => {
    const b = body([cost('a')], [cost('a'), cost('b'), formula('d', '(a + b) / 2 > foo')]);
    const res = await create(member(), b);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: `Invalid body: widgets.1.source.request.queries.2.formula: widget "k2", query "d": unknown query 'foo' at 14`,
    });
    expect((await listAll(member())).some((x) => x.name === b.name)).toBe(false);
  });

  it('refuses a condition that does not parse, and a cycle between formulas, on publish too', async () => {
    const d = await createOk(member(), body([cost('a'), formula('f', 'a * 2'), condition('s', 'f > 1')]));
    const bad = await publish(member(), d.id, {
      ...body([cost('a'), condition('s', 'a >> 1')]),
      version: d.version,
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toBe(
      'Invalid body: widgets.0.source.request.queries.1.expression: widget "k1", query "s": expected a number, a query name or \'(\' but found \'>\' at 3',
    );
    const cycle = await publish(member(), d.id, {
      ...body([cost('a'), formula('c', 'a + d'), formula('d', 'timeShift(c, 7, DAY)')]),
      version: d.version,
    });
    expect(cycle.status).toBe(400);
    expect(errorOf(cycle)).toContain('widgets.0.source.request.queries.1.formula: widget "k1", query "c"');
    expect(errorOf(cycle)).toContain('cycle: c → d → c');
    const read = await api<Dashboard>('GET', `/dashboard-v2/${d.id}`, { token: member() });
    expect(read.body).toMatchObject({ version: 1, publishedVersion: 1 });
  });

  it('accepts the spec examples: week over week, anomaly baselines, unit cost over a datasource', async () => {
    const res = await create(
      member(),
      body(
        [
          cost('a'),
          formula('wow', '(a - timeShift(a, 1, DAY)) / abs(timeShift(a, 1, DAY))'),
          condition('spike', 'wow > 0.2'),
        ],
        [cost('a'), condition('anomaly', 'a > rollingMedian(a, 28, DAY) * 1.5 and a > 100')],
        [cost('cost'), metric('requests', datasource), formula('unit', 'cost / requests * 1000')],
        [cost('a'), formula('w', 'timeShift(rollingSum(a, 7, DAY), 7, DAY)')],
      ),
    );
    expect(res.status).toBe(201);
  });

  it('accepts a metric query naming a datasource of the org (also id/metric) or a usage metric', async () => {
    for (const metricId of [datasource, `${datasource}/requests`, usageUnit]) {
      const res = await create(member(), body([metric('m', metricId), cost('a')]));
      expect({ metricId, status: res.status }).toEqual({ metricId, status: 201 });
    }
  });

  it("refuses an unknown metricId, an archived datasource and another organisation's datasource", async () => {
    for (const metricId of [
      'datadog.requests.count',
      archived,
      otherOrgDatasource,
      usageUnit.toLowerCase() + '_x',
    ]) {
      const b = body([cost('a')], [cost('a'), metric('m', metricId)]);
      const res = await create(member(), b);
      expect({ metricId, status: res.status }).toEqual({ metricId, status: 400 });
      expect(errorOf(res)).toContain(
        `Invalid body: widgets.1.source.request.queries.1.metricId: widget "k2", query "m": unknown metric "${metricId}"`,
      );
      expect((await listAll(member())).some((x) => x.name === b.name)).toBe(false);
    }
    const d = await createOk(member(), body([cost('a')]));
    const put = await publish(member(), d.id, { ...body([metric('m', archived)]), version: d.version });
    expect(put.status).toBe(400);
    expect(errorOf(put)).toContain('queries.0.metricId');
  });

  it("the other organisation's datasource is valid there, and ours is not", async () => {
    const theirs = await create(outsider(), body([metric('m', otherOrgDatasource)]));
    expect(theirs.status).toBe(201);
    const ours = await create(outsider(), body([metric('m', datasource)]));
    expect(ours.status).toBe(400);
  });
});

describe('dashboards over HTTP: publish and optimistic locking', () => {
  it('gives one 200 and one 409 to two concurrent publishes of the same version', async () => {
    const d = await createOk(member(), { name: unique('Race'), widgets: [simpleWidget('a')] });
    const [r1, r2] = await Promise.all([
      publish(member(), d.id, { name: 'first', widgets: [simpleWidget('one')], version: 1 }),
      publish(member(), d.id, { name: 'second', widgets: [simpleWidget('two')], version: 1 }),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([200, 409]);
    const loser = r1.status === 409 ? r1 : r2;
    const winner = r1.status === 200 ? r1 : r2;
    expect(loser.body).toEqual({ error: 'VERSION_CONFLICT' });
    const read = await api<Dashboard>('GET', `/dashboard-v2/${d.id}`, { token: member() });
    expect(read.body).toMatchObject({ name: winner.body.name, version: 2, publishedVersion: 2 });
    expect(read.body.widgets).toEqual(winner.body.widgets);
    const versions = await api<Page<VersionSummary>>('GET', `/dashboard-v2/${d.id}/versions`, {
      token: member(),
    });
    expect(versions.body.items.map((v) => v.version)).toEqual([2, 1]);
  });

  it('refuses a stale If-Match with 409 and accepts the current one', async () => {
    const d = await createOk(member(), { name: unique('IfMatch') });
    const ok = await publish(member(), d.id, { name: 'v2' }, { 'if-match': '"1"' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).toBe('"2"');
    const stale = await publish(member(), d.id, { name: 'v3' }, { 'if-match': '"1"' });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ error: 'VERSION_CONFLICT' });
    const disagree = await publish(member(), d.id, { name: 'v3', version: 2 }, { 'if-match': '"1"' });
    expect(disagree.status).toBe(400);
  });

  it('publish replaces every field: an omitted one goes back to its default', async () => {
    const d = await createOk(member(), { name: unique('Replace'), description: 'kept?', currency: 'EUR' });
    const res = await publish(member(), d.id, { name: d.name as string, version: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: '', currency: null, widgets: [], publishedVersion: 2 });
  });

  it('refuses a publish by someone who can see but not edit the dashboard', async () => {
    const d = await createOk(admin(), { name: unique('Admins'), type: 'PUBLIC' });
    const res = await publish(member(), d.id, { name: 'mine now', version: 1 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'FORBIDDEN' });
  });
});

describe('dashboards over HTTP: PATCH, versions and archive', () => {
  it('PATCH changes metadata only: no new version, omitted fields kept, stale version refused', async () => {
    const d = await createOk(member(), {
      name: unique('Patch'),
      description: 'keep me',
      widgets: [simpleWidget('a')],
    });
    const res = await api<Dashboard>('PATCH', `/dashboard-v2/${d.id}`, {
      token: member(),
      body: { name: 'Renamed', datePreset: 'MTD', currency: 'GBP', version: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      description: 'keep me',
      datePreset: 'MTD',
      currency: 'GBP',
      version: 2,
      publishedVersion: 1,
    });
    expect(res.body.widgets).toEqual(d.widgets);
    const versions = await api<Page<VersionSummary>>('GET', `/dashboard-v2/${d.id}/versions`, {
      token: member(),
    });
    expect(versions.body.items).toHaveLength(1);

    const stale = await api('PATCH', `/dashboard-v2/${d.id}`, {
      token: member(),
      body: { name: 'x', version: 1 },
    });
    expect(stale.status).toBe(409);
    const widgets = await api('PATCH', `/dashboard-v2/${d.id}`, { token: member(), body: { widgets: [] } });
    expect(widgets.status).toBe(400);
    expect(widgets.body).toEqual({
      error:
        'Invalid body: widgets: PATCH changes metadata only; publish widgets with PUT /dashboard-v2/{id}',
    });
    // A publish based on the version read before the PATCH loses: the PATCH is not overwritten blindly.
    const late = await publish(member(), d.id, { name: 'old copy', version: 1 });
    expect(late.status).toBe(409);
  });

  it('lists versions newest first with pagination and reads each one as published', async () => {
    const d = await createOk(member(), { name: unique('History'), widgets: [simpleWidget('v1')] });
    let version = d.version;
    for (const key of ['v2', 'v3']) {
      const res = await publish(member(), d.id, {
        name: d.name as string,
        widgets: [simpleWidget(key)],
        version,
      });
      expect(res.status).toBe(200);
      version = res.body.version;
    }
    const first = await api<Page<VersionSummary>>('GET', `/dashboard-v2/${d.id}/versions?limit=2`, {
      token: member(),
    });
    expect(first.status).toBe(200);
    expect(first.body.items.map((v) => v.version)).toEqual([3, 2]);
    expect(first.body.items[0]).toMatchObject({
      dashboardId: d.id,
      widgetCount: 1,
      createdById: s().users.member,
    });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await api<Page<VersionSummary>>(
      'GET',
      `/dashboard-v2/${d.id}/versions?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`,
      { token: member() },
    );
    expect(second.body.items.map((v) => v.version)).toEqual([1]);

    const v2 = await api<Dashboard>('GET', `/dashboard-v2/${d.id}/versions/2`, { token: member() });
    expect(v2.status).toBe(200);
    expect((v2.body.widgets[0] as { key: string }).key).toBe('v2');
    const missing = await api('GET', `/dashboard-v2/${d.id}/versions/9`, { token: member() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'VERSION_NOT_FOUND' });
    const bad = await api('GET', `/dashboard-v2/${d.id}/versions/zero`, { token: member() });
    expect(bad.status).toBe(400);
  });

  it('archives idempotently; an archived dashboard is read-only and hidden from lists unless asked for', async () => {
    const d = await createOk(member(), { name: unique('Archive'), type: 'PUBLIC' });
    const first = await api<Dashboard>('DELETE', `/dashboard-v2/${d.id}`, { token: member() });
    expect(first.status).toBe(200);
    expect(first.body.archivedAt).toEqual(expect.any(String));
    const again = await api<Dashboard>('DELETE', `/dashboard-v2/${d.id}`, { token: member() });
    expect(again.status).toBe(200);
    expect(again.body.archivedAt).toBe(first.body.archivedAt);
    expect(again.body.version).toBe(first.body.version);

    const put = await publish(member(), d.id, { name: 'revive' });
    expect(put.status).toBe(409);
    expect(put.body).toEqual({ error: 'DASHBOARD_ARCHIVED' });
    const patch = await api('PATCH', `/dashboard-v2/${d.id}`, { token: member(), body: { name: 'revive' } });
    expect(patch.status).toBe(409);

    expect((await listAll(member())).some((x) => x.id === d.id)).toBe(false);
    expect((await listAll(member(), '&includeArchived=true')).some((x) => x.id === d.id)).toBe(true);
  });

  it('refuses to let a member archive a dashboard they cannot edit', async () => {
    const d = await createOk(admin(), { name: unique('NotYours'), type: 'TEMPLATE' });
    const res = await api('DELETE', `/dashboard-v2/${d.id}`, { token: member() });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'FORBIDDEN' });
  });
});

describe('dashboards over HTTP: visibility, teams and lists', () => {
  it("hides an admin's PRIVATE dashboard from members, and shows PUBLIC and TEMPLATE ones", async () => {
    const priv = await createOk(admin(), { name: unique('AdminPrivate') });
    const pub = await createOk(admin(), { name: unique('AdminPublic'), type: 'PUBLIC' });
    const tpl = await createOk(admin(), { name: unique('AdminTemplate'), type: 'TEMPLATE' });
    const mine = await createOk(member(), { name: unique('MemberPrivate') });

    const seen = (await listAll(member())).map((d) => d.id);
    expect(seen).toEqual(expect.arrayContaining([pub.id, tpl.id, mine.id]));
    expect(seen).not.toContain(priv.id);
    const read = await api('GET', `/dashboard-v2/${priv.id}`, { token: member() });
    expect(read.status).toBe(404);

    const adminSees = (await listAll(admin())).map((d) => d.id);
    expect(adminSees).toEqual(expect.arrayContaining([priv.id, pub.id, tpl.id, mine.id]));

    const templates = await listAll(member(), '&type=TEMPLATE');
    expect(templates.every((d) => d.type === 'TEMPLATE')).toBe(true);
    expect(templates.map((d) => d.id)).toContain(tpl.id);
    expect(templates[0]).not.toHaveProperty('widgets');
  });

  it('pages the list with a cursor, newest update first, without repeats', async () => {
    for (let i = 0; i < 3; i++) await createOk(member(), { name: unique('Paged') });
    const first = await api<Page<Dashboard>>('GET', '/dashboard-v2?limit=2', { token: member() });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await api<Page<Dashboard>>(
      'GET',
      `/dashboard-v2?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`,
      { token: member() },
    );
    expect(second.body.items.length).toBeGreaterThan(0);
    const ids = [...first.body.items, ...second.body.items].map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    const bad = await api('GET', '/dashboard-v2?cursor=not-a-cursor', { token: member() });
    expect(bad.status).toBe(400);
  });

  it('searches by name (?name=, any case, every page through nextCursor) and validates it', async () => {
    const token = `Needle${Date.now().toString(36)}`;
    const made = [];
    for (const name of [`${token} one`, `two ${token.toLowerCase()}`, `THREE ${token.toUpperCase()}`])
      made.push(await createOk(member(), { name: unique(name) }));
    await createOk(member(), { name: unique('Haystack') });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = `?limit=2&name=${encodeURIComponent(` ${token.toUpperCase()} `)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await api<Page<Dashboard>>('GET', `/dashboard-v2${qs}`, { token: member() });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((d) => d.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual(made.map((d) => d.id).reverse());

    const tooLong = await api('GET', `/dashboard-v2?name=${'x'.repeat(201)}`, { token: member() });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({ error: 'Invalid query: name: must be at most 200 characters' });
    // Empty (after trimming) is no filter.
    const empty = await api<Page<Dashboard>>('GET', '/dashboard-v2?limit=1&name=%20', { token: member() });
    expect(empty.status).toBe(200);
    expect(empty.body.items).toHaveLength(1);
  });

  it('refuses to let a member assign a team they are not in, on create, publish and PATCH', async () => {
    const team = s().teams[0]!.id;
    const created = await create(member(), { name: unique('TeamMember'), teamId: team });
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ error: 'TEAM_MEMBER_REQUIRED' });

    const d = await createOk(member(), { name: unique('Solo') });
    const put = await publish(member(), d.id, { name: 'x', teamId: team, version: 1 });
    expect(put.status).toBe(403);
    const patch = await api('PATCH', `/dashboard-v2/${d.id}`, { token: member(), body: { teamId: team } });
    expect(patch.status).toBe(403);
    const read = await api<Dashboard>('GET', `/dashboard-v2/${d.id}`, { token: member() });
    expect(read.body).toMatchObject({ teamId: null, version: 1 });
  });

  it('lets a team member assign their team, filters the list by team, and refuses unknown teams to admins with 400', async () => {
    const team = s().teams[0]!.id;
    const d = await createOk(admin(), { name: unique('TeamAdmin'), teamId: team, type: 'PUBLIC' });
    expect(d.teamId).toBe(team);
    const byTeam = await listAll(member(), `&teamId=${team}`);
    expect(byTeam.map((x) => x.id)).toContain(d.id);
    expect(byTeam.every((x) => x.teamId === team)).toBe(true);

    const unknown = await create(admin(), { name: unique('Ghost'), teamId: 'team_does_not_exist' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: expect.stringContaining('teamId') });
  });

  it('refuses a member an unknown scope with 403 and an admin with 400 naming the path', async () => {
    const asMember = await create(member(), { name: unique('Scope'), scopeId: 'scope_nope' });
    expect(asMember.status).toBe(403);
    expect(asMember.body).toEqual({ error: 'SCOPE_ACCESS_REQUIRED' });
    const asAdmin = await create(admin(), {
      name: unique('Scope'),
      widgets: [simpleWidget('w', { scopeId: 'scope_nope' })],
    });
    expect(asAdmin.status).toBe(400);
    expect(asAdmin.body).toEqual({ error: expect.stringContaining('widgets.0.source.request.scopeId') });
  });
});
