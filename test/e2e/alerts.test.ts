import { COST_ALERT_FIELDS } from '../../shared/model/alerts';
import { expectSnoozeRoundTrip } from '../support/alert-messages';
import { datasourcesForQueries } from '../support/explorer-http';
import { api, session, stackKeys } from '../support/session';
import { conditionBody, costQuery, periodChangeBody, thresholdBody } from '../unit/alerts/fixtures';

const s = () => session();
const { admin, member, outsider } = stackKeys;

interface Alert {
  id: string;
  [k: string]: unknown;
}

const create = (token: string, body: Record<string, unknown>) =>
  api<Alert & { error?: string }>('POST', '/alerts-v2/costAlerts', { token, body });

describe('cost alerts over HTTP', () => {
  test('create answers 201 with exactly the spec record, for each variant', async () => {
    for (const body of [conditionBody(), thresholdBody(), periodChangeBody()]) {
      const res = await create(member(), body);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual([...COST_ALERT_FIELDS].sort());
      expect(res.body).toMatchObject({
        organizationId: s().orgId,
        createdById: s().users.member,
        archivedAt: null,
        snoozedUntil: null,
        name: body.name,
        currency: body.currency,
        notificationChannel: body.notificationChannel,
      });
      expect(res.body.id).toMatch(/^alrt_/);
    }
  });

  test('widgetData answers the record with its thresholds; another organisation gets 404', async () => {
    const { body: a } = await create(member(), thresholdBody());
    const res = await api<
      Alert & {
        thresholds: Record<string, unknown>[];
        series: { dataThrough: string; dates: string[]; thresholds: { value: number }[] } | null;
      }
    >('GET', `/alerts-v2/costAlerts/${a.id}/widgetData`, { token: admin() });
    expect(res.status).toBe(200);
    const { thresholds, series, ...record } = res.body;
    expect(record).toEqual(a);
    // The recent series (null when the organisation has no recent billing data; the e2e of
    // alerts-evaluation checks its figures), with the threshold to draw over it.
    if (series !== null) {
      expect(series.dates.at(-1)).toBe(series.dataThrough);
      expect(series.thresholds.map((t) => t.value)).toEqual([1000]);
    }
    expect(thresholds).toEqual([
      {
        id: expect.stringMatching(/^thr_/),
        costAlertId: a.id,
        budgetAlertId: null,
        value: 1000,
        severityLevel: 'INFO',
        metricMode: 'ABSOLUTE_SPEND',
        changeBasis: 'ABSOLUTE_DELTA',
      },
    ]);
    const other = await api('GET', `/alerts-v2/costAlerts/${a.id}/widgetData`, { token: outsider() });
    expect(other).toMatchObject({ status: 404, body: { error: 'Alert not found' } });
    const unknown = await api('GET', '/alerts-v2/costAlerts/alrt_nope/widgetData', { token: admin() });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Alert not found' } });
  });

  test('bad bodies are 400 {error} naming the problem, and create nothing', async () => {
    const before = await api<{ items: Alert[] }>('GET', '/alerts-v2/costAlerts?limit=100', {
      token: outsider(),
    });
    const cases: [Record<string, unknown>, RegExp][] = [
      [conditionBody({ name: '' }), /name/],
      [conditionBody({ currency: 'KRW' }), /currency/],
      [conditionBody({ emails: ['nope'] }), /emails\.0/],
      [conditionBody({ condition: 'ec2 > 1 and foo < 2' }), /unknown query 'foo' at 12/],
      [thresholdBody({ slackChannelId: undefined }), /slackChannelId/],
      [periodChangeBody({ teamsChannelId: 'https://127.0.0.1/teams/hook' }), /loopback/],
      [
        periodChangeBody({
          teamsChannelId: `${s().endpoints.capture.replace('127.0.0.1', 'localhost')}/teams/x`,
        }),
        /https/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await create(outsider(), body);
      expect({ status: res.status, keys: Object.keys(res.body) }).toEqual({ status: 400, keys: ['error'] });
      expect(res.body.error).toMatch(message);
    }
    const after = await api<{ items: Alert[] }>('GET', '/alerts-v2/costAlerts?limit=100', {
      token: outsider(),
    });
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  test('list pages newest first, hides archived ones unless asked, and stays in the organisation', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i++)
      made.push((await create(outsider(), thresholdBody({ name: `list ${i}` }))).body.id);
    const first = await api<{ items: Alert[]; nextCursor: string | null }>(
      'GET',
      '/alerts-v2/costAlerts?limit=2',
      {
        token: outsider(),
      },
    );
    expect(first.status).toBe(200);
    expect(first.body.items.map((a) => a.id)).toEqual([made[2], made[1]]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await api<{ items: Alert[] }>(
      'GET',
      `/alerts-v2/costAlerts?limit=2&cursor=${first.body.nextCursor}`,
      { token: outsider() },
    );
    expect(second.body.items[0]?.id).toBe(made[0]);
    for (const item of [...first.body.items, ...second.body.items])
      expect(item.organizationId).toBe(s().otherOrgId);
    const mine = await api<{ items: Alert[] }>('GET', '/alerts-v2/costAlerts?limit=100', { token: admin() });
    expect(mine.body.items.some((a) => made.includes(a.id))).toBe(false);

    await api('DELETE', `/alerts-v2/costAlerts/${made[2]}`, { token: outsider() });
    const visible = await api<{ items: Alert[] }>('GET', '/alerts-v2/costAlerts?limit=100', {
      token: outsider(),
    });
    expect(visible.body.items.map((a) => a.id)).not.toContain(made[2]);
    const all = await api<{ items: Alert[] }>('GET', '/alerts-v2/costAlerts?limit=100&includeArchived=true', {
      token: outsider(),
    });
    expect(all.body.items.map((a) => a.id)).toContain(made[2]);
  });

  test('update is conditional on the version (If-Match) and replaces thresholds', async () => {
    const res = await create(member(), thresholdBody());
    expect(res.headers.get('etag')).toBe('"1"');
    const id = res.body.id;
    const body = thresholdBody({
      name: 'Renamed',
      thresholds: [
        { value: 500, severityLevel: 'WARNING' },
        { value: 900, severityLevel: 'CRITICAL' },
      ],
    });
    const put = await api<Alert>('PUT', `/alerts-v2/costAlerts/${id}`, {
      token: member(),
      body,
      headers: { 'if-match': '"1"' },
    });
    expect(put.status).toBe(200);
    expect(put.body.name).toBe('Renamed');
    expect(put.headers.get('etag')).toBe('"2"');
    const stale = await api('PUT', `/alerts-v2/costAlerts/${id}`, {
      token: member(),
      body,
      headers: { 'if-match': '"1"' },
    });
    expect(stale).toMatchObject({ status: 409, body: { error: 'VERSION_CONFLICT' } });
    const wd = await api<{ thresholds: { value: number }[] }>(
      'GET',
      `/alerts-v2/costAlerts/${id}/widgetData`,
      {
        token: member(),
      },
    );
    expect(wd.body.thresholds.map((t) => t.value).sort((a, b) => a - b)).toEqual([500, 900]);
    const bad = await api<{ error: string }>('PUT', `/alerts-v2/costAlerts/${id}`, {
      token: member(),
      body: thresholdBody({ currency: 'KRW' }),
    });
    expect(bad.status).toBe(400);
    const other = await api('PUT', `/alerts-v2/costAlerts/${id}`, { token: outsider(), body });
    expect(other).toMatchObject({ status: 404, body: { error: 'Alert not found' } });
  });

  test('archive sets archivedAt once (idempotent); snooze and unsnooze set snoozedUntil', async () => {
    const { body: a } = await create(member(), conditionBody());
    await expectSnoozeRoundTrip('costAlerts', member(), a.id);

    const first = await api<Alert>('DELETE', `/alerts-v2/costAlerts/${a.id}`, { token: member() });
    expect(first.status).toBe(200);
    expect(first.body.archivedAt).toEqual(expect.any(String));
    const again = await api<Alert>('DELETE', `/alerts-v2/costAlerts/${a.id}`, { token: member() });
    expect(again.body.archivedAt).toBe(first.body.archivedAt);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    const other = await api('DELETE', `/alerts-v2/costAlerts/${a.id}`, { token: outsider() });
    expect(other).toMatchObject({ status: 404, body: { error: 'Alert not found' } });
  });

  test("another member cannot change someone else's alert; history starts empty", async () => {
    const { body: a } = await create(admin(), conditionBody());
    const res = await api('DELETE', `/alerts-v2/costAlerts/${a.id}`, { token: member() });
    expect(res).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
    const history = await api('GET', `/alerts-v2/costAlerts/${a.id}/history`, { token: member() });
    expect(history).toMatchObject({ status: 200, body: { items: [], nextCursor: null } });
    const foreign = await api('GET', `/alerts-v2/costAlerts/${a.id}/history`, { token: outsider() });
    expect(foreign.status).toBe(404);
  });
});

/**
 * Save-time checks of what an alert refers to (issue 25 §6), as dashboards make them: `scopeId`
 * against the caller's membership, formulas against the alert's query names, and metric queries
 * against the organisation's metrics datasources and usage metrics. Create, update and backtest
 * alike; a refused body stores nothing.
 */
describe('cost alerts over HTTP: scope, formulas and metrics are checked when saved', () => {
  const tag = `refs${Date.now().toString(36)}`;
  const named = (what: string) => `${tag} ${what} ${Math.random().toString(36).slice(2, 7)}`;
  const metricQuery = (name: string, metricId: string) => ({
    type: 'metric',
    name,
    colorIndex: 1,
    chartType: 'LINE',
    metricId,
    aggregator: 'SUM',
  });
  const formulaQuery = (name: string, formula: string) => ({
    type: 'formula',
    name,
    colorIndex: 2,
    chartType: 'LINE',
    formula,
  });
  const stored = async (token: string, name: string) => {
    const res = await api<{ items: Alert[] }>('GET', '/alerts-v2/costAlerts?limit=100', { token });
    return res.body.items.some((a) => a.name === name);
  };
  const backtest = (token: string, body: Record<string, unknown>) =>
    api<{ error?: string }>('POST', '/alerts-v2/costAlerts/backtest', { token, body });

  let teamScope: string;
  let openScope: string;
  let datasource: string;
  let archived: string;
  let otherOrgDatasource: string;
  let usageUnit: string;

  beforeAll(async () => {
    const scope = async (teamIds: string[]) => {
      const res = await api<{ id: string }>('POST', '/iac/scopes', {
        token: admin(),
        body: { name: named('scope'), teamIds, filters: { provider: ['AWS'] } },
      });
      expect(res.status).toBe(201);
      return res.body.id;
    };
    // The demo member is in no team; the admin is in team_platform.
    teamScope = await scope([s().teams[0]!.id]);
    openScope = await scope([]);
    ({ datasource, archived, otherOrgDatasource, usageUnit } = await datasourcesForQueries(named));
  });

  test('a member cannot put a scope of a team they are not in, or an unknown one, on an alert: 403 SCOPE_ACCESS_REQUIRED', async () => {
    for (const scopeId of [teamScope, 'scope_nope']) {
      const name = named('member scope');
      const res = await create(member(), thresholdBody({ name, scopeId }));
      expect({ scopeId, status: res.status, body: res.body }).toEqual({
        scopeId,
        status: 403,
        body: { error: 'SCOPE_ACCESS_REQUIRED' },
      });
      expect(await stored(member(), name)).toBe(false);
      const bt = await backtest(member(), thresholdBody({ name, scopeId }));
      expect({ scopeId, status: bt.status, body: bt.body }).toEqual({
        scopeId,
        status: 403,
        body: { error: 'SCOPE_ACCESS_REQUIRED' },
      });
    }
    // On update too: the member's own alert keeps its scope.
    const { body: mine } = await create(member(), thresholdBody({ name: named('mine') }));
    const put = await api('PUT', `/alerts-v2/costAlerts/${mine.id}`, {
      token: member(),
      body: thresholdBody({ name: mine.name, scopeId: teamScope }),
    });
    expect(put).toMatchObject({ status: 403, body: { error: 'SCOPE_ACCESS_REQUIRED' } });
    const after = await api<Alert>('GET', `/alerts-v2/costAlerts/${mine.id}/widgetData`, { token: member() });
    expect(after.body.scopeId).toBeNull();
  });

  test('a member may use a scope tied to no team; an admin any scope, and an unknown one is 400 naming scopeId', async () => {
    const open = await create(member(), thresholdBody({ name: named('open'), scopeId: openScope }));
    expect(open.status).toBe(201);
    expect(open.body.scopeId).toBe(openScope);
    const asAdmin = await create(admin(), thresholdBody({ name: named('admin'), scopeId: teamScope }));
    expect(asAdmin.status).toBe(201);
    const unknown = await create(admin(), thresholdBody({ name: named('unknown'), scopeId: 'scope_nope' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'Invalid body: scopeId: unknown scope scope_nope' });
  });

  test('a metric query must name a metrics datasource or a usage metric of the organisation', async () => {
    for (const metricId of ['datadog.requests.count', archived, otherOrgDatasource, `${usageUnit}_x`]) {
      const name = named('bad metric');
      const body = thresholdBody({
        name,
        thresholdType: 'UNDER',
        queries: [metricQuery('req', metricId)],
        queryName: 'req',
      });
      const res = await create(member(), body);
      expect({ metricId, status: res.status }).toEqual({ metricId, status: 400 });
      expect(res.body.error).toContain(
        `Invalid body: queries.0.metricId: query "req": unknown metric "${metricId}"`,
      );
      expect(await stored(member(), name)).toBe(false);
      expect((await backtest(member(), body)).status).toBe(400);
    }
    for (const metricId of [datasource, `${datasource}/requests`, usageUnit]) {
      const res = await create(
        member(),
        thresholdBody({
          name: named('good metric'),
          queries: [costQuery('spend'), metricQuery('req', metricId), formulaQuery('unit', 'spend / req')],
          queryName: 'unit',
        }),
      );
      expect({ metricId, status: res.status }).toEqual({ metricId, status: 201 });
    }
    // The same on update: the stored queries are kept.
    const { body: a } = await create(member(), thresholdBody({ name: named('to update') }));
    const put = await api<{ error: string }>('PUT', `/alerts-v2/costAlerts/${a.id}`, {
      token: member(),
      body: thresholdBody({ name: a.name, queries: [costQuery('spend'), metricQuery('m', 'nope.metric')] }),
    });
    expect(put.status).toBe(400);
    expect(put.body.error).toContain('queries.1.metricId');
    const after = await api<Alert>('GET', `/alerts-v2/costAlerts/${a.id}/widgetData`, { token: member() });
    expect(after.body.queries).toEqual(a.queries);
  });

  test('a formula must parse against the alert’s query names, without cycles', async () => {
    const cases: [unknown[], string][] = [
      [
        [costQuery('spend'), formulaQuery('f', 'spend * 2 + foo')],
        `Invalid body: queries.1.formula: query "f": unknown query 'foo' at 12`,
      ],
      [[costQuery('spend'), formulaQuery('f', 'spend >> 2')], 'Invalid body: queries.1.formula: query "f": '],
      [
        [costQuery('spend'), formulaQuery('c', 'spend + d'), formulaQuery('d', 'c * 2')],
        'Invalid body: queries.1.formula: query "c": formulas and conditions refer to each other in a cycle: c → d → c',
      ],
    ];
    for (const [queries, error] of cases) {
      const name = named('formula');
      const res = await create(member(), thresholdBody({ name, queries, queryName: 'spend' }));
      expect({ error: res.body.error, status: res.status }).toEqual({
        error: expect.stringContaining(error),
        status: 400,
      });
      expect(await stored(member(), name)).toBe(false);
    }
  });
});
