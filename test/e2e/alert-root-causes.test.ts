import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RootCauses } from '../../shared/model/alerts';
import { atLeast, emailsTo, slackTo, sweepAlertsOf, teamsTo, usd } from '../support/alert-messages';
import { ingestOk } from '../support/cli';
import { type CostRow, focusCsv } from '../support/focus-csv';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { DAY_MS, suiteIds, ymd } from '../support/suite';

/**
 * Root causes in every cost-alert message, end to end on the local stack: a fresh organisation
 * ingests a FOCUS export where, on the last complete day, several (service, account, region)
 * combinations move by known amounts. A period-change alert (e-mail and Teams) and a condition alert
 * grouped by region (Slack) fire, and each message lists the top contributors to the change with
 * their amounts before and after and their share of it. Every figure is computed here from the rows.
 */
const { run, orgId } = suiteIds('rootc');
const today = Date.parse(`${ymd(Date.now())}T00:00:00Z`);
// Rows end yesterday, so the last complete day (the evaluated one) is the day before.
const dayAgo = (n: number) => ymd(today - n * DAY_MS);
const spikeDay = dayAgo(2);
const prevDay = dayAgo(3);

const EC2 = 'Amazon Elastic Compute Cloud';
/** Combinations: [service, sub-account, region, daily amount by days ago, change on the spike day]. */
const COMBOS: [string, string, string, (i: number) => number, number][] = [
  [EC2, '111111111111', 'us-east-1', (i) => 100 + (i % 3), 300],
  [EC2, '222222222222', 'eu-west-1', () => 40, 0],
  ['Amazon Simple Storage Service', '111111111111', 'us-east-1', () => 30, -20],
  ['Amazon Relational Database Service', '222222222222', 'eu-west-1', (i) => 50 + (i % 2), 80],
  ['AWS Lambda', '111111111111', 'us-east-1', () => 8, 6],
  ['AmazonCloudWatch', '111111111111', 'us-east-1', () => 5, 3],
  ['Amazon DynamoDB', '222222222222', 'eu-west-1', () => 12, -2],
];

function generateRows(): CostRow[] {
  const rows: CostRow[] = [];
  let id = 1;
  for (let i = 20; i >= 1; i--)
    for (const [service, subAccount, region, amount, jump] of COMBOS) {
      const cost = amount(i) + (dayAgo(i) === spikeDay ? jump : 0);
      // Two rows per combination and day, so amounts are sums, not single values.
      for (const part of [0.75, 0.25])
        rows.push({
          day: dayAgo(i),
          cost: Number((cost * part).toFixed(4)),
          service,
          subAccount,
          region,
          id: id++,
        });
    }
  return rows;
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${usd(Math.abs(x))}`;
const pct = (x: number) =>
  `${x >= 0 ? '+' : ''}${new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(x)}%`;

interface Expected {
  label: string;
  before: number;
  after: number;
  change: number;
}

/** Per group (`key` of a row), the amounts over the baseline days (averaged) and the evaluated day. */
function contributors(rows: CostRow[], key: (r: CostRow) => string, baselineDays: string[]) {
  const before = new Map<string, number>();
  const after = new Map<string, number>();
  for (const r of rows) {
    if (baselineDays.includes(r.day))
      before.set(key(r), (before.get(key(r)) ?? 0) + r.cost / baselineDays.length);
    if (r.day === spikeDay) after.set(key(r), (after.get(key(r)) ?? 0) + r.cost);
  }
  const all: Expected[] = [...new Set([...before.keys(), ...after.keys()])].map((label) => {
    const b = before.get(label) ?? 0;
    const a = after.get(label) ?? 0;
    return { label, before: b, after: a, change: a - b };
  });
  const total = all.reduce((t, c) => t + c.change, 0);
  const top = all
    .filter((c) => Math.abs(c.change) > 1e-9)
    .sort((x, y) => Math.abs(y.change) - Math.abs(x.change))
    .slice(0, 5);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((t, v) => t + v, 0);
  return { top, total, before: sum(before), after: sum(after) };
}

/** The line a contributor is shown as, in every format. */
const lineOf = (c: Expected, total: number) =>
  `${c.label}: ${usd(c.before)} → ${usd(c.after)} (${signed(c.change)}, ${pct((c.change / c.before) * 100)}; ${pct((c.change / total) * 100).replace(/^\+/, '')} of the change)`;

let key = '';
let rows: CostRow[] = [];
let emailAlertId = '';
let slackAlertId = '';
const to = `rootc-${run}@example.com`;
const channel = `CROOT${run.toUpperCase()}`;
const teamsHook = () => `${session().endpoints.capture}/teams/rootc-${run}`;

const spend = (extra: Record<string, unknown> = {}) => ({
  type: 'cost',
  name: 'spend',
  alias: 'All spend',
  colorIndex: 0,
  chartType: 'BAR',
  ...extra,
});
const dayChange = (extra: Record<string, unknown>) => ({
  currency: 'USD',
  queries: [spend()],
  thresholds: [
    { value: 100, severityLevel: 'WARNING', metricMode: 'PERIOD_CHANGE', changeBasis: 'ABSOLUTE_DELTA' },
  ],
  thresholdType: 'ABOVE',
  evaluationPeriod: 'DAILY',
  ...extra,
});

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', { token: key, body });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  key = await freshOrg(orgId, `user_rootc${run}`, `root causes ${run}`);
  rows = generateRows();
  const file = join(mkdtempSync(join(tmpdir(), 'alert-root-causes-')), 'focus_root_causes.csv');
  writeFileSync(file, focusCsv(rows));
  ingestOk(orgId, file);
  emailAlertId = await create(
    dayChange({ name: 'Daily jump (email)', notificationChannel: 'EMAIL', emails: [to] }),
  );
  await create(
    dayChange({ name: 'Daily jump (teams)', notificationChannel: 'TEAMS', teamsChannelId: teamsHook() }),
  );
  slackAlertId = await create({
    name: 'Region spike (slack)',
    currency: 'USD',
    queries: [spend({ groupBy: 'region' })],
    condition: 'spend > rollingAvg(spend, 7, DAY) * 1.3',
    dedup: { kind: 'ROLLING' },
    dedupWindowDays: 3,
    thresholds: [],
    notificationChannel: 'SLACK',
    slackChannelId: channel,
  });
  expect(await sweepAlertsOf([orgId], new Date())).toBe(true);
}, 600_000);

jest.setTimeout(300_000);

describe('every cost-alert message names the top contributors to the change', () => {
  const byCombo = (r: CostRow) => `${r.service} / ${r.subAccount} / ${r.region}`;

  test('e-mail (text and HTML): by service / sub-account / region against the previous day', async () => {
    const { top, total, before, after } = contributors(rows, byCombo, [prevDay]);
    // The rows were built so: five combinations moved more than the sixth, which is left out.
    expect(top.map((c) => c.label.split(' / ')[0])).toEqual([
      EC2,
      'Amazon Relational Database Service',
      'Amazon Simple Storage Service',
      'AWS Lambda',
      'AmazonCloudWatch',
    ]);
    const [mail] = await atLeast(() => emailsTo(to), 1);
    const text = mail?.body.text ?? '';
    const explained = top.reduce((t, c) => t + c.change, 0);
    expect(text).toContain(
      `Top contributors by service / sub-account / region (All spend: ${usd(after)} against ${usd(before)} for the previous day (${prevDay}), ${signed(total)}; these explain ${pct((explained / total) * 100).replace(/^\+/, '')} of the change):`,
    );
    for (const c of top) expect(text).toContain(`- ${lineOf(c, total)}`);
    expect(text).not.toContain('Amazon DynamoDB');
    const html = mail?.body.html ?? '';
    // The e-mail's HTML shows the same figures as a table: contributor, before, after, change, share.
    const cells = [...html.matchAll(/<td style="[^"]*">([^<]*)<\/td>/g)].map((m) => m[1]);
    for (const c of top) {
      const at = cells.indexOf(c.label);
      expect(cells.slice(at, at + 5)).toEqual([
        c.label,
        usd(c.before),
        usd(c.after),
        `${signed(c.change)}, ${pct((c.change / c.before) * 100)}`,
        pct((c.change / total) * 100).replace(/^\+/, ''),
      ]);
    }
  });

  test('Teams: the same contributors as card text', async () => {
    const { top, total } = contributors(rows, byCombo, [prevDay]);
    const [post] = await atLeast(() => teamsTo(teamsHook()), 1);
    const card = JSON.stringify(post?.body ?? {});
    for (const c of top) expect(card).toContain(JSON.stringify(`• ${lineOf(c, total)}`));
  });

  test("Slack: by the alert's own groupBy (region) against the daily average of the 7 days before", async () => {
    const week = Array.from({ length: 7 }, (_, i) => dayAgo(3 + i));
    const { top, total, before, after } = contributors(rows, (r) => r.region ?? '', week);
    expect(top.map((c) => c.label)).toEqual(['us-east-1', 'eu-west-1']);
    const [post] = await atLeast(() => slackTo(channel), 1);
    const blocks = JSON.stringify(post?.body.blocks ?? []);
    const first = week.at(-1);
    expect(blocks).toContain(
      `Top contributors by region (All spend: ${usd(after)} against ${usd(before)} for the daily average of the 7 days before (${first} to ${prevDay}), ${signed(total)}; these explain 100.0% of the change):`,
    );
    for (const c of top) expect(blocks).toContain(`• ${lineOf(c, total)}`);
  });

  /** The root causes the alert's history keeps with its firing (the one evaluation that notified). */
  async function historyRootCauses(alertId: string) {
    const res = await api<{ items: HistoryItem[]; nextCursor: string | null }>(
      'GET',
      `/alerts-v2/costAlerts/${alertId}/history`,
      { token: key },
    );
    expect(res.status).toBe(200);
    const fired = res.body.items.filter((e) => e.notificationId !== null);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ evaluatedDay: spikeDay, triggered: true, suppressedBy: null });
    // Evaluations that sent nothing keep none.
    for (const e of res.body.items) if (e.notificationId === null) expect(e.rootCauses).toBeNull();
    return fired[0]!.rootCauses!;
  }

  function expectFigures(kept: RootCauses, want: ReturnType<typeof contributors>) {
    const cents = 2;
    expect(kept.before).toBeCloseTo(want.before, cents);
    expect(kept.after).toBeCloseTo(want.after, cents);
    expect(kept.change).toBeCloseTo(want.total, cents);
    expect(kept.top.map((c) => c.label)).toEqual(want.top.map((c) => c.label));
    want.top.forEach((c, i) => {
      const k = kept.top[i]!;
      expect(k.before).toBeCloseTo(c.before, cents);
      expect(k.after).toBeCloseTo(c.after, cents);
      expect(k.change).toBeCloseTo(c.change, cents);
      expect(k.changePercent).toBeCloseTo((c.change / c.before) * 100, 1);
      expect(k.share).toBeCloseTo((c.change / want.total) * 100, 1);
    });
    const explained = want.top.reduce((t, c) => t + c.change, 0);
    expect(kept.explained).toBeCloseTo((explained / want.total) * 100, 1);
  }

  test("the alert's history keeps the root causes with the firing: against the previous day", async () => {
    const kept = await historyRootCauses(emailAlertId);
    expect(kept).toMatchObject({
      query: 'All spend',
      period: { start: spikeDay, end: spikeDay },
      baseline: { start: prevDay, end: prevDay },
    });
    expectFigures(kept, contributors(rows, byCombo, [prevDay]));
  });

  test("the alert's history keeps the root causes with the firing: by region against the 7-day average", async () => {
    const week = Array.from({ length: 7 }, (_, i) => dayAgo(3 + i));
    const kept = await historyRootCauses(slackAlertId);
    expect(kept).toMatchObject({
      dimension: 'region',
      period: { start: spikeDay, end: spikeDay },
      baseline: { start: week.at(-1), end: prevDay },
    });
    expectFigures(
      kept,
      contributors(rows, (r) => r.region ?? '', week),
    );
  });
});

interface HistoryItem {
  evaluatedDay: string;
  triggered: boolean;
  suppressedBy: string | null;
  notificationId: string | null;
  rootCauses: RootCauses | null;
}
