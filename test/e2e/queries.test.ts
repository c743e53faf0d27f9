import { join } from 'node:path';
import { readSeed } from '../../infra/local/warehouse-hook';
import { simpleWidget } from '../fixtures/dashboards/realistic';
import { type CsvRow, close, num, readCsv } from '../integration/warehouse/support';
import { type Conversion, costQuery } from '../support/explorer';
import { api, session } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';

/**
 * The query engine over HTTP on the local stack. Figures are checked against sums computed here
 * from the CSV the stack seeded for the second organisation (`org_acme`, which no other suite
 * ingests into).
 */
interface Point {
  date: string;
  value: number | null;
  partial?: true;
}
interface Series {
  group: Record<string, string | null>;
  points: Point[];
  total: number | null;
  other?: true;
}
interface Answer {
  period: { startDate: string; endDate: string; aggBy: string };
  queries: { name: string; currency: string | null; series: Series[]; total: number | null }[];
  dataThrough: string | null;
  currency: string | null;
  conversion: Conversion | null;
}

const s = () => session();
let acme: CsvRow[] = [];
let month = '';

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const inMonth = (r: CsvRow) => day(r).startsWith(month);
const sum = (rows: CsvRow[]) => rows.reduce((a, r) => a + num(r.BilledCost), 0);
const lastDay = (m: string) =>
  new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).toISOString().slice(0, 10);

const cost = (name: string, extra: Record<string, unknown> = {}) =>
  costQuery(name, { chartType: 'BAR', ...extra });
const monthPeriod = () => ({
  startDate: `${month}-01T00:00:00Z`,
  endDate: `${lastDay(month)}T00:00:00Z`,
  aggBy: 'Period',
});

function explore(token: string, request: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return api<Answer>('POST', '/queries/explorer', { token, body: { request, ...extra } });
}

async function createScope(token: string, filters: Record<string, unknown> | null): Promise<string> {
  const res = await api<{ id: string }>('POST', '/iac/scopes', {
    token,
    body: { name: `scope ${Date.now()} ${Math.random()}`, filters },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const aws = { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] };

function expectClose(actual: number | null | undefined, expected: number) {
  if (!close(actual ?? Number.NaN, expected, 1e-9)) throw new Error(`got ${actual}, expected ${expected}`);
}

beforeAll(() => {
  const seed = readSeed(s().stateDir);
  const org = seed?.orgs.find((o) => o.orgId === s().otherOrgId);
  if (!org) throw new Error('no seed for the second organisation');
  acme = readCsv(join(s().stateDir, 'bucket', org.key));
  month = org.options.months[0]!;
});

describe('POST /queries/explorer', () => {
  it('answers cost by provider over a month, equal to the seeded rows', async () => {
    const res = await explore(s().apiKeys.outsider, {
      period: monthPeriod(),
      queries: [cost('a', { groupBy: 'provider' })],
    });
    expect(res.status).toBe(200);
    expect(res.body.period).toEqual({ startDate: `${month}-01`, endDate: lastDay(month), aggBy: 'Period' });
    const rows = acme.filter(inMonth);
    const providers = [...new Set(rows.map((r) => String(r.ProviderName)))].sort();
    const series = res.body.queries[0]!.series;
    expect(series.map((x) => x.group.provider).sort()).toEqual(providers);
    for (const x of series)
      expectClose(x.total, sum(rows.filter((r) => r.ProviderName === x.group.provider)));
    expectClose(res.body.queries[0]!.total, sum(rows));
    expect(res.body.currency).toBe('USD');
  });

  it('applies the context conditions to cost queries that extend them', async () => {
    const conditions = { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] };
    const res = await explore(
      s().apiKeys.outsider,
      { period: monthPeriod(), queries: [cost('a'), cost('b', { extendDashboardConditions: false })] },
      { conditions, currency: 'EUR' },
    );
    expect(res.status).toBe(200);
    // The figures are converted to EUR at the seed's synthetic rates (USD per EUR, read here from the
    // rate file by hand): each row at the last rate published on or before its charge day.
    const usdPerEur = seedUsdPerEur();
    const eur = (r: CsvRow) => num(r.BilledCost) / rateOn(usdPerEur, day(r));
    const sumEur = (list: CsvRow[]) => list.reduce((a, r) => a + eur(r), 0);
    const rows = acme.filter(inMonth);
    expectClose(res.body.queries[0]!.total, sumEur(rows.filter((r) => r.ProviderName === 'AWS')));
    expectClose(res.body.queries[1]!.total, sumEur(rows));
    expect(res.body.queries[0]!.currency).toBe('EUR');
    expect(res.body.currency).toBe('EUR');
    expect(res.body.conversion).toMatchObject({
      from: ['USD'],
      to: 'EUR',
      source: expect.stringMatching(/Synthetic/),
    });
  });

  it("never shows another organisation's rows", async () => {
    const request = { period: monthPeriod(), queries: [cost('a', { groupBy: 'tag:acme-division' })] };
    const demo = await explore(s().apiKeys.member, request);
    expect(demo.status).toBe(200);
    expect(demo.body.queries[0]!.series.map((x) => x.group['tag:acme-division'])).not.toContain('rockets');
    const own = await explore(s().apiKeys.outsider, request);
    expect(own.body.queries[0]!.series.map((x) => x.group['tag:acme-division'])).toContain('rockets');
  });

  it.each([
    ['an unknown query in a formula', { formula: 'a + foo' }, "query f: unknown query 'foo' at 4"],
    ['a cycle between formulas', { formula: 'g' }, 'formulas reference each other in a cycle: f -> g -> f'],
  ])('answers 400 for %s', async (_label, formula, message) => {
    const res = await explore(s().apiKeys.member, {
      period: { datePreset: 'LAST_MONTH', aggBy: 'Day' },
      queries: [
        cost('a'),
        { type: 'formula', name: 'f', colorIndex: 0, chartType: 'LINE', ...formula },
        { type: 'formula', name: 'g', colorIndex: 0, chartType: 'LINE', formula: 'f' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: message });
  });

  it('takes plain dates and defaults colorIndex and chartType: per day equal to the seeded rows', async () => {
    const first = `${month}-01`;
    const last = lastDay(month);
    const plain = await explore(s().apiKeys.outsider, {
      period: { startDate: first, endDate: last, aggBy: 'Day' },
      queries: [
        { type: 'cost', name: 'a' },
        { type: 'formula', name: 'b', formula: 'a * 2' },
      ],
    });
    expect(plain.status).toBe(200);
    expect(plain.body.period).toEqual({ startDate: first, endDate: last, aggBy: 'Day' });
    const rows = acme.filter(inMonth);
    const [a, b] = plain.body.queries;
    expectClose(a?.total, sum(rows));
    expectClose(b?.total, 2 * sum(rows));
    const points = a?.series.flatMap((x) => x.points) ?? [];
    expect(points.length).toBeGreaterThan(27);
    for (const p of points) expectClose(p.value ?? 0, sum(rows.filter((r) => day(r) === p.date)));
    // The same request with date-times answers the same.
    const dated = await explore(s().apiKeys.outsider, {
      period: { startDate: `${first}T00:00:00Z`, endDate: `${last}T00:00:00Z`, aggBy: 'Day' },
      queries: [
        cost('a', { colorIndex: 3 }),
        { type: 'formula', name: 'b', colorIndex: 1, chartType: 'LINE', formula: 'a * 2' },
      ],
    });
    expect(dated.status).toBe(200);
    expect(dated.body.queries.map((q) => q.total)).toEqual(plain.body.queries.map((q) => q.total));
    // A comparison period in plain dates too.
    const compared = await explore(s().apiKeys.outsider, {
      period: {
        startDate: first,
        endDate: last,
        aggBy: 'Period',
        comparisonPeriod: { startDate: first, endDate: last, enabled: true, chartType: 'TABLE' },
      },
      queries: [{ type: 'cost', name: 'a' }],
    });
    expect(compared.status).toBe(200);
  });

  it('still refuses what is not a date, and a display field of the wrong kind', async () => {
    for (const startDate of ['2026-02-30', '08/01/2026', '2026-8-1']) {
      const res = await explore(s().apiKeys.member, {
        period: { startDate, endDate: '2026-03-10', aggBy: 'Day' },
        queries: [{ type: 'cost', name: 'a' }],
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('startDate');
    }
    const chart = await explore(s().apiKeys.member, {
      period: { datePreset: 'LAST_MONTH', aggBy: 'Day' },
      queries: [{ type: 'cost', name: 'a', chartType: 'PIE' }],
    });
    expect(chart.status).toBe(400);
    expect(JSON.stringify(chart.body)).toContain('chartType');
  });

  it('answers 400 for an unknown dimension, endDate before startDate and too many buckets', async () => {
    const unknown = await explore(s().apiKeys.member, {
      period: { datePreset: 'LAST_MONTH', aggBy: 'Day' },
      queries: [cost('a', { groupBy: 'no_such_dimension' })],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'Unknown dimension "no_such_dimension"' });
    const backwards = await explore(s().apiKeys.member, {
      period: { startDate: '2024-05-10T00:00:00Z', endDate: '2024-05-01T00:00:00Z', aggBy: 'Day' },
      queries: [cost('a')],
    });
    expect(backwards.status).toBe(400);
    expect((backwards.body as unknown as { error: string }).error).toMatch(
      /endDate must not be before startDate/,
    );
    const cap = await explore(s().apiKeys.member, {
      period: { datePreset: 'LAST_4_YEARS', aggBy: 'Hour' },
      queries: [cost('a')],
    });
    expect(cap.status).toBe(400);
    expect((cap.body as unknown as { error: string }).error).toMatch(/more than 2000 hour buckets/);
  });

  it("restricts every cost query by the request's scope; another organisation's scope is a 400", async () => {
    const scopeId = await createScope(s().apiKeys.outsider, aws);
    const request = {
      period: monthPeriod(),
      scopeId,
      queries: [cost('a'), cost('b', { extendDashboardConditions: false })],
    };
    const res = await explore(s().apiKeys.outsider, request);
    expect(res.status).toBe(200);
    const rows = acme.filter(inMonth);
    const scoped = sum(rows.filter((r) => r.ProviderName === 'AWS'));
    expect(scoped).not.toBeCloseTo(sum(rows), 2);
    expectClose(res.body.queries[0]!.total, scoped);
    expectClose(res.body.queries[1]!.total, scoped);
    const foreign = await explore(s().apiKeys.member, request);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ error: `scopeId: unknown scope ${scopeId}` });
  });

  it('answers the same figures whatever eventsFilter and bookmarkedEvents hold (they annotate, never filter)', async () => {
    const request = { period: monthPeriod(), queries: [cost('a', { groupBy: 'provider' })] };
    const plain = await explore(s().apiKeys.outsider, request);
    const annotated = await explore(s().apiKeys.outsider, {
      ...request,
      bookmarkedEvents: ['evt_1'],
      eventsFilter: { sources: ['custom', 'api'], githubSourceRepos: ['acme/site'], search: 'deploy' },
    });
    expect(annotated.status).toBe(200);
    expect(annotated.body).toEqual(plain.body);
  });

  it('requires a credential', async () => {
    const res = await api('POST', '/queries/explorer', { body: { request: {} } });
    expect(res.status).toBe(401);
  });
});

describe('GET /dashboard-v2/{id}/widgets/{key}/data', () => {
  async function dashboard(token: string, body: Record<string, unknown>): Promise<string> {
    const res = await api<{ id: string }>('POST', '/dashboard-v2', { token, body });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  it("runs a widget with its dashboard's period and conditions", async () => {
    const widget = simpleWidget('w1', {
      period: { aggBy: 'Month' },
      queries: [cost('a'), cost('b', { extendDashboardConditions: false, groupBy: 'provider' })],
    });
    const id = await dashboard(s().apiKeys.outsider, {
      name: `engine ${Date.now()}`,
      startDate: `${month}-01`,
      endDate: lastDay(month),
      conditions: { combinator: 'and', rules: [{ field: 'service', operator: 'notIn', value: ['Tax'] }] },
      widgets: [widget],
    });
    const res = await api<Answer>('GET', `/dashboard-v2/${id}/widgets/w1/data`, {
      token: s().apiKeys.outsider,
    });
    expect(res.status).toBe(200);
    expect(res.body.period).toEqual({ startDate: `${month}-01`, endDate: lastDay(month), aggBy: 'Month' });
    const rows = acme.filter(inMonth);
    expectClose(res.body.queries[0]!.total, sum(rows.filter((r) => r.ServiceName !== 'Tax')));
    expect(res.body.queries[0]!.series[0]!.points.map((p) => p.date)).toEqual([`${month}-01`]);
    expectClose(res.body.queries[1]!.total, sum(rows));

    const missing = await api('GET', `/dashboard-v2/${id}/widgets/nope/data`, {
      token: s().apiKeys.outsider,
    });
    expect(missing.status).toBe(404);
    // Another organisation's dashboard does not exist for the caller.
    const foreign = await api('GET', `/dashboard-v2/${id}/widgets/w1/data`, { token: s().apiKeys.member });
    expect(foreign.status).toBe(404);
  });

  it("restricts a widget by its dashboard's scope and its own scopeId", async () => {
    const dashboardScope = await createScope(s().apiKeys.outsider, aws);
    const widgetScope = await createScope(s().apiKeys.outsider, {
      combinator: 'and',
      rules: [{ field: 'service', operator: 'notIn', value: ['Tax'] }],
    });
    const id = await dashboard(s().apiKeys.outsider, {
      name: `scoped ${Date.now()}`,
      startDate: `${month}-01`,
      endDate: lastDay(month),
      scopeId: dashboardScope,
      widgets: [
        simpleWidget('w1', { period: { aggBy: 'Period' }, queries: [cost('a')] }),
        simpleWidget('w2', { period: { aggBy: 'Period' }, scopeId: widgetScope, queries: [cost('a')] }),
      ],
    });
    const rows = acme.filter(inMonth).filter((r) => r.ProviderName === 'AWS');
    const w1 = await api<Answer>('GET', `/dashboard-v2/${id}/widgets/w1/data`, {
      token: s().apiKeys.outsider,
    });
    expect(w1.status).toBe(200);
    expectClose(w1.body.queries[0]!.total, sum(rows));
    const w2 = await api<Answer>('GET', `/dashboard-v2/${id}/widgets/w2/data`, {
      token: s().apiKeys.outsider,
    });
    expect(w2.status).toBe(200);
    expectClose(w2.body.queries[0]!.total, sum(rows.filter((r) => r.ServiceName !== 'Tax')));
  });

  it("hides a private dashboard's widgets from those who cannot see it", async () => {
    const id = await dashboard(s().apiKeys.admin, {
      name: `private ${Date.now()}`,
      type: 'PRIVATE',
      widgets: [simpleWidget('w1')],
    });
    const hidden = await api('GET', `/dashboard-v2/${id}/widgets/w1/data`, { token: s().apiKeys.member });
    expect(hidden.status).toBe(404);
    const own = await api<Answer>('GET', `/dashboard-v2/${id}/widgets/w1/data`, { token: s().apiKeys.admin });
    expect(own.status).toBe(200);
    expect(own.body.queries[0]!.series[0]!.points).toHaveLength(30);
  });
});
