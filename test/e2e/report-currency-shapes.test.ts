import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { csvLine, FOCUS_HEADER, generateFocusRows } from '../../infra/local/demo-data/generator';
import { money } from '../../shared/domain/reports/render/figures';
import { simpleWidget } from '../fixtures/dashboards/realistic';
import { type CsvRow, close, num, readCsv } from '../integration/warehouse/support';
import { ingestOk as ingestCli } from '../support/cli';
import type { Conversion } from '../support/explorer';
import { freshOrg } from '../support/fresh-org';
import { isPdf, isValidPng } from '../support/report-delivery-files';
import { api, session } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';
import { DAY_MS, monthStart, suiteIds, ymd } from '../support/suite';

/**
 * Report widgets over an organisation billed in two currencies (AWS rows in USD, Microsoft rows in
 * EUR), on the local stack over HTTP: GRAPH_SNAPSHOT converts like TOP_FLOP and DIGEST (each row at
 * its charge day's rate, the conversion stated, a 422 naming a missing rate), a report without a
 * currency uses the organisation's reporting currency, and a report built only from the reference
 * product's widget shapes (`queries`, TOP_FLOP `aggBy: "Period"`, a context-wide filter) is created,
 * previewed, sent and delivered with figures equal to sums computed here from the raw rows × the
 * stack's rate file, never from the engine.
 */
const ROOT = resolve(__dirname, '..', '..');
const _s = () => session();
const { run, orgId, userId } = suiteIds('rcur');
const ARTIFACTS = join(ROOT, 'test', 'artifacts', 'reports');

let token = '';
let rows: CsvRow[] = [];
/** The stack's synthetic rates: USD per EUR by publication day. */
let usdPerEur = new Map<string, number>();
/** A day with an EUR row and no rate within reach (more than 7 days after no publication). */
let oldDay = '';

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
/** A row's cost in `target` (USD or EUR), converted by hand at its charge day's rate. */
function inTarget(r: CsvRow, target: 'USD' | 'EUR'): number {
  const amount = num(r.BilledCost);
  if (r.BillingCurrency === target) return amount;
  return target === 'USD' ? amount * rateOn(usdPerEur, day(r)) : amount / rateOn(usdPerEur, day(r));
}
const between = (from: string, to: string) => (r: CsvRow) => day(r) >= from && day(r) <= to;
function sum(filter: (r: CsvRow) => boolean, target: 'USD' | 'EUR' = 'USD'): number {
  return rows.filter(filter).reduce((a, r) => a + inTarget(r, target), 0);
}
function sumBy(filter: (r: CsvRow) => boolean, key: (r: CsvRow) => string, target: 'USD' | 'EUR' = 'USD') {
  const out = new Map<string, number>();
  for (const r of rows.filter(filter)) out.set(key(r), (out.get(key(r)) ?? 0) + inTarget(r, target));
  return out;
}
/** Equal to 1e-9 relative, or to the 6 decimals a change tree rounds its nodes to. */
function expectClose(actual: number | null | undefined, expected: number) {
  const a = actual ?? Number.NaN;
  if (!close(a, expected, 1e-9) && !(Math.abs(a - expected) <= 5e-7))
    throw new Error(`got ${actual}, expected ${expected}`);
}

const lastMonth = () => {
  const now = new Date();
  return { from: monthStart(now, 1), to: ymd(Date.parse(`${monthStart(now, 0)}T00:00:00Z`) - DAY_MS) };
};
const monthBefore = () => {
  const now = new Date();
  return { from: monthStart(now, 2), to: ymd(Date.parse(`${monthStart(now, 1)}T00:00:00Z`) - DAY_MS) };
};

interface Period {
  startDate: string;
  endDate: string;
}
interface Node {
  value: string | null;
  current: number;
  previous: number;
  diff: number;
  group: Record<string, string | null>;
  children?: Node[];
}
interface Preview {
  type: string;
  title: string | null;
  period: Period;
  comparisonPeriod: Period | null;
  currency: string | null;
  requestedCurrency: string | null;
  conversion: Conversion | null;
  totals?: { current: number; previous: number; diff: number };
  increases?: Node[];
  decreases?: Node[];
  tree?: Node[];
  groupBy?: string | string[];
  rendered?: boolean;
  chart?: {
    title: string;
    chartType: string;
    currency: string | null;
    stamp: string[];
    displayOptions?: { showTotal?: boolean };
    series: { name: string; total: number | null; points: { date: string; value: number | null }[] }[];
  };
}

function preview(context: Record<string, unknown>, widget: Record<string, unknown>) {
  return api<Preview & { error?: string; reason?: string; details?: { path: string; message: string }[] }>(
    'POST',
    '/reports/preview-widget',
    { token, body: { context, widget } },
  );
}

interface StoredEmail {
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
  attachments: { filename: string; contentType: string; content: string }[];
}
async function emailsTo(address: string): Promise<StoredEmail[]> {
  const store = (await (await fetch(`${process.env.SES_ENDPOINT}/store`)).json()) as {
    emails: StoredEmail[];
  };
  return store.emails.filter((e) => e.destination.to.some((t) => t.includes(address)));
}
async function slackPostsTo(channel: string) {
  const calls = (await (await fetch(`${process.env.CAPTURE_URL}/messages?kind=slack`)).json()) as {
    path: string;
    body: { channel?: string; blocks?: unknown[]; text?: string };
  }[];
  return calls.filter((c) => c.path.endsWith('/chat.postMessage') && c.body?.channel === channel);
}

async function sendAndDrain(reportId: string) {
  const sent = await api<{ destinations: number }>('POST', `/reports/${reportId}/send`, { token });
  expect(sent.status).toBe(202);
  expect((await api('POST', '/_local/drain', { body: { timeoutMs: 90_000 } })).status).toBe(200);
}

beforeAll(async () => {
  usdPerEur = seedUsdPerEur();
  const published = [...usdPerEur.keys()].sort();
  // Two full months before the last, this month so far: LAST_MONTH, its comparison month and
  // TRAILING_14_WEEKS all hold rows, inside the stack's rates.
  const now = new Date();
  const months = [3, 2, 1, 0].map((o) => monthStart(now, o).slice(0, 7));
  expect(published[0]! <= `${months[1]}-01`).toBe(true);
  token = await freshOrg(orgId, userId, `report currency ${run}`);
  const lines = [FOCUS_HEADER.map((h) => `"${h}"`).join(',')];
  const generated = [
    ...generateFocusRows({
      seed: 23,
      months,
      resourcesPerProvider: 2,
      providers: ['AWS', 'Microsoft'],
      until: ymd(Date.parse(`${ymd(now.getTime())}T00:00:00Z`) - DAY_MS),
      accountPrefix: `rc${run}`,
    }),
  ];
  for (const r of generated) {
    if (r.ProviderName === 'Microsoft') r.BillingCurrency = 'EUR';
    lines.push(csvLine(r));
  }
  // One EUR row on a day no rate reaches (40 days before the first publication, inside
  // LAST_12_MONTHS): converting a period that holds it must be a 422 naming it.
  oldDay = ymd(Date.parse(`${published[0]}T00:00:00Z`) - 40 * DAY_MS);
  expect(oldDay >= monthStart(now, 12)).toBe(true);
  const eurRow = generated.find((r) => r.ProviderName === 'Microsoft')!;
  const oldMonth = oldDay.slice(0, 7);
  const next = monthStart(new Date(Date.parse(`${oldMonth}-01T00:00:00Z`)), -1).slice(0, 7);
  lines.push(
    csvLine({
      ...eurRow,
      BillingPeriodStart: `${oldMonth}-01 00:00:00`,
      BillingPeriodEnd: `${next}-01 00:00:00`,
      ChargePeriodStart: `${oldDay} 00:00:00`,
      ChargePeriodEnd: `${ymd(Date.parse(`${oldDay}T00:00:00Z`) + DAY_MS)} 00:00:00`,
    }),
  );
  const dir = mkdtempSync(join(tmpdir(), 'report-currency-'));
  const file = join(dir, 'focus_two_currencies.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  rows = readCsv(file);
  expect(new Set(rows.map((r) => r.BillingCurrency))).toEqual(new Set(['USD', 'EUR']));
  ingestCli(orgId, file);
}, 600_000);

jest.setTimeout(300_000);

describe('GRAPH_SNAPSHOT over a USD + EUR organisation', () => {
  const context = { currency: 'USD', datePreset: 'LAST_MONTH', groupBy: null };

  it('converts at each charge day rate like TOP_FLOP with the same context, and states the conversion', async () => {
    const { from, to } = lastMonth();
    const expected = sum(between(from, to));
    // Adding EUR to USD 1:1 gives another figure: the test can tell the two apart.
    const naive = rows.filter(between(from, to)).reduce((a, r) => a + num(r.BilledCost), 0);
    expect(Math.abs(naive - expected)).toBeGreaterThan(1);

    const graph = await preview(context, { type: 'GRAPH_SNAPSHOT', aggBy: 'Week' });
    expect(graph.status).toBe(200);
    expect(graph.body.period).toMatchObject({ startDate: from, endDate: to });
    expect(graph.body.currency).toBe('USD');
    expect(graph.body.requestedCurrency).toBe('USD');
    expect(graph.body.conversion).toMatchObject({ from: ['EUR'], to: 'USD', source: expect.any(String) });
    expect(graph.body.chart!.currency).toBe('USD');
    const series = graph.body.chart!.series;
    expect(series).toHaveLength(1);
    expectClose(series[0]!.total, expected);
    // Every weekly point is the hand-converted sum of its rows.
    for (const p of series[0]!.points) {
      const end = ymd(
        Math.min(Date.parse(`${p.date}T00:00:00Z`) + 6 * DAY_MS, Date.parse(`${to}T00:00:00Z`)),
      );
      expectClose(p.value ?? 0, sum(between([p.date, from].sort()[1]!, end)));
    }
    expect(graph.body.chart!.stamp.join('\n')).toMatch(
      /Figures in USD, converted from EUR at .* rates of each charge day/,
    );

    const topFlop = await preview(context, { type: 'TOP_FLOP', groupBy: 'provider' });
    expect(topFlop.status).toBe(200);
    expect(topFlop.body.currency).toBe('USD');
    // The same conversion (TOP_FLOP's rates also span its comparison month).
    expect(topFlop.body.conversion).toMatchObject({
      from: graph.body.conversion!.from,
      to: 'USD',
      source: graph.body.conversion!.source,
    });
    expectClose(topFlop.body.totals!.current, expected);
  });

  it('converts into the context currency (EUR) by hand-computed rates', async () => {
    const { from, to } = lastMonth();
    const res = await preview(
      { ...context, currency: 'EUR' },
      { type: 'GRAPH_SNAPSHOT', groupBy: 'provider' },
    );
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('EUR');
    expect(res.body.conversion).toMatchObject({ from: ['USD'], to: 'EUR' });
    const byProvider = sumBy(between(from, to), (r) => String(r.ProviderName), 'EUR');
    const series = res.body.chart!.series;
    expect(series.map((x) => x.name).sort()).toEqual([...byProvider.keys()].sort());
    for (const x of series) expectClose(x.total, byProvider.get(x.name)!);
  });

  it('a context without a currency is figured in the organisation reporting currency (USD by default)', async () => {
    const { from, to } = lastMonth();
    const res = await preview({ ...context, currency: null }, { type: 'GRAPH_SNAPSHOT' });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('USD');
    expect(res.body.conversion).toMatchObject({ from: ['EUR'], to: 'USD' });
    expectClose(res.body.chart!.series[0]!.total, sum(between(from, to)));
  });

  it('answers 422 naming the currency and the day when a row has no rate', async () => {
    const res = await preview(context, {
      type: 'GRAPH_SNAPSHOT',
      datePreset: 'LAST_12_MONTHS',
      aggBy: 'Month',
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(new RegExp(`^No exchange rate for EUR to USD on ${oldDay}`));
  });

  it('the delivered PNG is drawn in USD, its stamp in the e-mail, next to a DIGEST that agrees', async () => {
    const address = `rcur-${run}@example.com`;
    const created = await api<{ id: string }>('POST', '/reports', {
      token,
      body: {
        name: `Two currencies ${run}`,
        context,
        widgets: [
          { type: 'DIGEST', groupBy: 'provider' },
          { type: 'GRAPH_SNAPSHOT', title: 'Daily cost', chartType: 'BAR' },
        ],
        destinations: [{ destinationType: 'EMAIL', destinationValues: [address] }],
      },
    });
    expect(created.status).toBe(201);
    await sendAndDrain(created.body.id);
    const [mail] = await emailsTo(address);
    expect(mail).toBeDefined();
    const { from, to } = lastMonth();
    const text = mail!.body.text ?? '';
    // The DIGEST's total and the chart's stamp, both in USD converted from EUR.
    expect(text).toContain(`to ${money(sum(between(from, to)), 'USD')} for ${from} to ${to}`);
    expect(text).toMatch(/Daily cost\nPeriod .*\nFigures in USD, converted from EUR at /);
    const png = mail!.attachments.find((a) => a.contentType === 'image/png');
    expect(png).toBeDefined();
    const bytes = Buffer.from(png!.content, 'base64');
    expect(isValidPng(bytes)).toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'two-currency-graph-snapshot.png'), bytes);
  });
});

describe('a dashboard without a currency, in a report of the USD + EUR organisation', () => {
  it('its snapshot and PDF are drawn in the reporting currency, never EUR added to USD', async () => {
    const { from, to } = lastMonth();
    const d = await api<{ id: string }>('POST', '/dashboard-v2', {
      token,
      body: {
        name: `Two currencies ${run}`,
        type: 'PUBLIC',
        widgets: [
          {
            ...simpleWidget('by-provider', {
              period: { aggBy: 'Period', datePreset: 'LAST_MONTH' },
              queries: [
                { type: 'cost', name: 'a', colorIndex: 0, chartType: 'TABLE', groupBy: ['provider'] },
              ],
            }),
            title: 'Cost by provider',
            w: 12,
          },
          {
            ...simpleWidget('daily', {
              period: { aggBy: 'Day', datePreset: 'LAST_MONTH' },
              queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'BAR' }],
            }),
            title: 'Daily cost',
            y: 4,
            w: 12,
          },
        ],
      },
    });
    expect(d.status).toBe(201);
    const snap = await preview(
      { currency: null },
      { type: 'GRAPH_SNAPSHOT', dashboardId: d.body.id, widgetKey: 'by-provider' },
    );
    expect(snap.status).toBe(200);
    expect(snap.body.currency).toBe('USD');
    expect(snap.body.conversion).toMatchObject({ from: ['EUR'], to: 'USD' });
    const byProvider = sumBy(between(from, to), (r) => String(r.ProviderName));
    for (const x of snap.body.chart!.series) expectClose(x.total, byProvider.get(x.name)!);

    const address = `rpdf-${run}@example.com`;
    const created = await api<{ id: string }>('POST', '/reports', {
      token,
      body: {
        name: `Dashboard PDF ${run}`,
        widgets: [{ type: 'DASHBOARD_PDF', dashboardId: d.body.id }],
        destinations: [{ destinationType: 'EMAIL', destinationValues: [address] }],
      },
    });
    expect(created.status).toBe(201);
    await sendAndDrain(created.body.id);
    const [mail] = await emailsTo(address);
    const pdf = mail!.attachments.find((a) => a.contentType === 'application/pdf');
    expect(pdf).toBeDefined();
    const bytes = Buffer.from(pdf!.content, 'base64');
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'two-currency-dashboard.pdf'), bytes);
    expect(isPdf(bytes)).toBe(true);
  });
});

describe('a report built only from the reference product’s widget shapes', () => {
  // The report-wide filter keeps two services of each provider out; each query adds its own.
  const conditions = {
    combinator: 'and',
    rules: [{ field: 'provider', operator: 'in', value: ['AWS', 'Microsoft'] }],
  };
  const reference = () => ({
    name: `Reference shapes ${run}`,
    context: { metricId: 'cost', currency: 'USD', groupBy: 'provider', datePreset: 'LAST_MONTH', conditions },
    widgets: [
      { type: 'TEXT', title: 'How to read this report', contentMarkdown: '## Weekly pulse\n\nMovers below.' },
      {
        type: 'DIGEST',
        queries: [{ type: 'cost', name: 'a', alias: 'Cost by provider' }],
        aggBy: 'Month',
        additionalGroupBy: ['service'],
        minAbsoluteDiff: 1,
        minRelativeDiff: 0,
        topLargestAbsoluteChange: 20,
      },
      {
        type: 'TOP_FLOP',
        title: 'Microsoft services, in EUR',
        queries: [
          {
            type: 'cost',
            name: 'a',
            alias: 'Cost by service',
            groupBy: 'service',
            currency: 'EUR',
            whereClause: {
              combinator: 'and',
              rules: [{ field: 'provider', operator: 'in', value: ['Microsoft'] }],
            },
          },
        ],
        aggBy: 'Period',
        topN: 20,
        flopN: 0,
      },
      {
        type: 'GRAPH_SNAPSHOT',
        title: 'Cost by provider — trailing weeks',
        queries: [{ type: 'cost', name: 'a', alias: 'Cost by provider', chartType: 'LINE' }],
        datePreset: 'TRAILING_14_WEEKS',
        aggBy: 'Week',
      },
    ],
  });
  const microsoft = (r: CsvRow) => r.ProviderName === 'Microsoft';
  let reportId = '';

  it('is created over HTTP as sent (the shapes kept) and read back', async () => {
    const body = {
      ...reference(),
      destinations: [
        { destinationType: 'EMAIL', destinationValues: [`rref-${run}@example.com`] },
        { destinationType: 'SLACK', destinationValues: [`CRREF${run.toUpperCase()}`] },
      ],
    };
    const res = await api<{
      id: string;
      widgets: Record<string, unknown>[];
      context: Record<string, unknown>;
    }>('POST', '/reports', { token, body });
    expect(res.status).toBe(201);
    reportId = res.body.id;
    expect(res.body.context.conditions).toEqual(conditions);
    expect(res.body.widgets[1]).toMatchObject({
      type: 'DIGEST',
      queries: body.widgets[1]!.queries,
      aggBy: 'Month',
    });
    expect(res.body.widgets[2]).toMatchObject({
      type: 'TOP_FLOP',
      aggBy: 'Period',
      queries: body.widgets[2]!.queries,
    });
    expect(res.body.widgets[3]).toMatchObject({ type: 'GRAPH_SNAPSHOT', queries: body.widgets[3]!.queries });
    const read = await api<{ widgets: unknown[] }>('GET', `/reports/${reportId}`, { token });
    expect(read.body.widgets).toEqual(res.body.widgets);
  });

  it('previews each widget with context → widget → query inheritance, figures from the raw rows', async () => {
    const { context, widgets } = reference();
    const cur = lastMonth();
    const prev = monthBefore();

    const digest = await preview(context, widgets[1]!);
    expect(digest.status).toBe(200);
    expect(digest.body.title).toBe('Cost by provider'); // the query's alias
    expect(digest.body.groupBy).toEqual(['provider', 'service']); // root from the context
    expect(digest.body.currency).toBe('USD');
    expectClose(digest.body.totals!.current, sum(between(cur.from, cur.to)));
    expectClose(digest.body.totals!.previous, sum(between(prev.from, prev.to)));
    const roots = sumBy(between(cur.from, cur.to), (r) => String(r.ProviderName));
    for (const n of digest.body.tree!) expectClose(n.current, roots.get(String(n.value))!);

    const topFlop = await preview(context, widgets[2]!);
    expect(topFlop.status).toBe(200);
    expect(topFlop.body.groupBy).toBe('service'); // the query's groupBy over the context's
    expect(topFlop.body.currency).toBe('EUR'); // the query's currency over the context's
    const isCur = (r: CsvRow) => microsoft(r) && between(cur.from, cur.to)(r);
    const isPrev = (r: CsvRow) => microsoft(r) && between(prev.from, prev.to)(r);
    expectClose(topFlop.body.totals!.current, sum(isCur, 'EUR'));
    expectClose(topFlop.body.totals!.previous, sum(isPrev, 'EUR'));
    const now = sumBy(isCur, (r) => String(r.ServiceName), 'EUR');
    const before = sumBy(isPrev, (r) => String(r.ServiceName), 'EUR');
    const grew = [...now.keys()].filter((k) => now.get(k)! - (before.get(k) ?? 0) > 0);
    expect(topFlop.body.increases!.map((n) => n.value).sort()).toEqual(grew.sort());
    for (const n of topFlop.body.increases!) expectClose(n.current, now.get(String(n.value))!);
    expect(topFlop.body.decreases).toEqual([]);

    const graph = await preview(context, widgets[3]!);
    expect(graph.status).toBe(200);
    expect(graph.body.chart!.chartType).toBe('LINE'); // the query's chartType
    expect(graph.body.chart!.title).toBe('Cost by provider — trailing weeks');
    const { startDate, endDate } = graph.body.period;
    const byProvider = sumBy(between(startDate, endDate), (r) => String(r.ProviderName));
    const series = graph.body.chart!.series;
    expect(series.map((x) => x.name).sort()).toEqual([...byProvider.keys()].sort());
    for (const x of series) expectClose(x.total, byProvider.get(x.name)!);
  });

  it('draws queries in two currencies side by side, each converted, with no total across them', async () => {
    const { from, to } = lastMonth();
    const res = await preview(
      { currency: 'USD', datePreset: 'LAST_MONTH' },
      {
        type: 'GRAPH_SNAPSHOT',
        queries: [
          { type: 'cost', name: 'a', alias: 'In USD' },
          { type: 'cost', name: 'b', alias: 'In EUR', currency: 'EUR' },
        ],
      },
    );
    expect(res.status).toBe(200);
    const byName = new Map(res.body.chart!.series.map((x) => [x.name, x.total]));
    expectClose(byName.get('In USD'), sum(between(from, to), 'USD'));
    expectClose(byName.get('In EUR'), sum(between(from, to), 'EUR'));
    expect(res.body.chart!.displayOptions).toMatchObject({ showTotal: false });
    expect(res.body.chart!.currency).toBeNull();
    expect(res.body.currency).toBeNull();
    expect(res.body.chart!.stamp[1]).toBe(
      "Figures per query: In USD in USD, converted from EUR; In EUR in EUR, converted from USD (at each charge day's rate)",
    );
  });

  it('the report-wide filter is ANDed with each query’s', async () => {
    const { context, widgets } = reference();
    const onlyAws = { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] };
    // Context keeps AWS only, the TOP_FLOP's query keeps Microsoft only: nothing is left.
    const res = await preview({ ...context, conditions: onlyAws }, widgets[2]!);
    expect(res.status).toBe(200);
    expect(res.body.totals).toMatchObject({ current: 0, previous: 0 });
    const digest = await preview({ ...context, conditions: onlyAws }, widgets[1]!);
    const cur = lastMonth();
    expectClose(
      digest.body.totals!.current,
      sum((r) => r.ProviderName === 'AWS' && between(cur.from, cur.to)(r)),
    );
  });

  it('is sent: the e-mail and the Slack message state the figures computed from the rows', async () => {
    await sendAndDrain(reportId);
    const cur = lastMonth();
    const prev = monthBefore();
    const [mail] = await emailsTo(`rref-${run}@example.com`);
    expect(mail).toBeDefined();
    const text = mail!.body.text ?? '';
    const total = money(sum(between(cur.from, cur.to)), 'USD');
    expect(text).toContain(`to ${total} for ${cur.from} to ${cur.to}`);
    expect(text).toMatch(/How to read this report\nWeekly pulse/);
    const isCur = (r: CsvRow) => microsoft(r) && between(cur.from, cur.to)(r);
    const now = sumBy(isCur, (r) => String(r.ServiceName), 'EUR');
    const before = sumBy(
      (r) => microsoft(r) && between(prev.from, prev.to)(r),
      (r) => String(r.ServiceName),
      'EUR',
    );
    const [topService, topValue] = [...now.entries()]
      .filter(([k, x]) => x - (before.get(k) ?? 0) > 0)
      .sort((a, b) => b[1] - (before.get(b[0]) ?? 0) - (a[1] - (before.get(a[0]) ?? 0)))[0]!;
    expect(text).toContain('Microsoft services, in EUR');
    expect(text).toContain(`${topService}: ${money(topValue, 'EUR')}`);
    // flopN 0: the plain text says so, as the HTML does.
    expect(text).toMatch(/Largest decreases:\nNone\./);
    expect(text).toContain('Cost by provider — trailing weeks');
    const pngs = mail!.attachments.filter((a) => a.contentType === 'image/png');
    expect(pngs).toHaveLength(1);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'reference-shapes-graph.png'), Buffer.from(pngs[0]!.content, 'base64'));
    const posts = await slackPostsTo(`CRREF${run.toUpperCase()}`);
    expect(posts).toHaveLength(1);
    const slack = JSON.stringify(posts[0]!.body);
    expect(slack).toContain(total);
    expect(slack).toContain(money(topValue, 'EUR'));
  });

  it('refuses a GRAPH_SNAPSHOT with both a dashboard widget and queries, and a TOP_FLOP by Week', async () => {
    const both = await preview(
      {},
      {
        type: 'GRAPH_SNAPSHOT',
        dashboardId: 'dash_x',
        widgetKey: 'k',
        queries: [{ type: 'cost', name: 'a' }],
      },
    );
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('VALIDATION_ERROR');
    const week = await preview({}, { type: 'TOP_FLOP', aggBy: 'Week' });
    expect(week.status).toBe(400);
    expect(week.body.details?.[0]?.path).toBe('widget.aggBy');
    const deep = await preview(
      {},
      {
        type: 'DIGEST',
        queries: [{ type: 'cost', name: 'a', groupBy: ['provider', 'service', 'region'] }],
        additionalGroupBy: ['region_name', 'account'],
      },
    );
    expect(deep.status).toBe(400);
    expect(deep.body.reason).toMatch(/at most 4 group-by dimensions/);
    const two = await preview(
      {},
      {
        type: 'DIGEST',
        queries: [
          { type: 'cost', name: 'a' },
          { type: 'cost', name: 'b' },
        ],
      },
    );
    expect(two.status).toBe(400);
  });
});
