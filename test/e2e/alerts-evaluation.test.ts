import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureOrganization } from '../../shared/db/organizations-repo';
import { ensureUser } from '../../shared/db/users-repo';
import { createApiKey } from '../../shared/domain/apikeys/mint';
import { parseExplorerQueryString } from '../../shared/links';
import {
  atLeast,
  captured,
  costAlertHistory,
  drainQueues,
  emailsTo,
  pngSize,
  sendEvaluationMessage,
  slackFiles,
  slackTo,
  snoozeOneArchiveOther,
  sweepAlertsOf,
  teamsTo,
  usd,
} from '../support/alert-messages';
import { cardImagesOf, linksOf, signInConsole, suiteBrowser } from '../support/browser';
import { consoleMoney } from '../support/explorer';
import { type CostRow, focusCsv } from '../support/focus-csv';
import { api, session } from '../support/session';
import { DAY_MS, suiteIds, ymd } from '../support/suite';

/**
 * Scheduled evaluation end to end on the local stack: a FOCUS export with a cost spike is ingested
 * into a fresh organisation; an EMAIL and a SLACK alert whose condition catches the spike are
 * swept, evaluated through the query engine on the last complete day, and delivered once each.
 * Every figure is computed here from the generated rows.
 */
const ROOT = resolve(__dirname, '..', '..');
const s = () => session();
const { run, orgId, userId } = suiteIds('aeval');

// The billing data ends yesterday (UTC), so the engine's last complete day is the day before:
// that is the spike day, and the evaluation must decide on it.
const today = Date.parse(`${ymd(Date.now())}T00:00:00Z`);
const lastRowDay = ymd(today - DAY_MS);
const spikeDay = ymd(today - 2 * DAY_MS);
const SERVICE = 'Amazon Elastic Compute Cloud';

type Row = CostRow;

/** 75 days of two rows a day, a spike of EC2 on `spikeDay`, and a small other service. */
function generateRows(): Row[] {
  const rows: Row[] = [];
  let id = 1;
  for (let i = 75; i >= 1; i--) {
    const day = ymd(today - i * DAY_MS);
    const base = 100 + ((i * 7) % 13) + 0.25 * (i % 4);
    const ec2 = day === spikeDay ? base * 4 + 123.5 : base;
    rows.push({ day, cost: Number((ec2 * 0.6).toFixed(4)), service: SERVICE, id: id++ });
    rows.push({ day, cost: Number((ec2 * 0.4).toFixed(4)), service: SERVICE, id: id++ });
    rows.push({ day, cost: 3.5, service: 'Amazon Simple Storage Service', id: id++ });
  }
  return rows;
}

const ec2On = (rows: Row[], day: string) =>
  rows.filter((r) => r.day === day && r.service === SERVICE).reduce((a, r) => a + r.cost, 0);

function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

const drain = async () => {
  expect(await drainQueues()).toBe(true);
};
// Only this organisation: the other alert test files' alerts are not evaluated under their feet.
const sweep = async (now: Date) => {
  expect(await sweepAlertsOf([orgId], now)).toBe(true);
};

let token = '';
let rows: Row[] = [];
const to = `eval-${run}@example.com`;
const snoozedTo = `snoozed-${run}@example.com`;
const archivedTo = `archived-${run}@example.com`;
const channel = `CEVAL${run.toUpperCase()}`;
const teamsHook = () => `${s().endpoints.capture}/teams/eval-${run}`;
const ids: Record<string, string> = {};

const condition = 'spend > rollingMedian(spend, 28, DAY) * 1.5 and spend > 100';
function alertBody(name: string, extra: Record<string, unknown>) {
  return {
    name,
    currency: 'USD',
    urlState: 'datePreset=TRAILING_30_DAYS',
    queries: [
      {
        type: 'cost',
        name: 'spend',
        alias: 'EC2 cost',
        colorIndex: 0,
        chartType: 'BAR',
        whereClause: {
          combinator: 'and',
          rules: [{ field: 'ServiceName', operator: 'in', value: [SERVICE] }],
        },
      },
    ],
    condition,
    dedup: { kind: 'ROLLING' },
    dedupWindowDays: 3,
    thresholds: [],
    ...extra,
  };
}

async function create(name: string, extra: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
    token,
    body: alertBody(name, extra),
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  // A fresh organisation (the billing ingest ignores uploads for organisations that do not exist).
  await ensureOrganization({
    id: orgId,
    name: `eval ${run}`,
    timezone: 'UTC',
    createdAt: new Date().toISOString(),
  });
  await ensureUser({
    id: userId,
    organizationId: orgId,
    email: `${userId}@example.com`,
    name: 'eval',
    role: 'admin',
    createdAt: new Date().toISOString(),
  });
  token = (await createApiKey(orgId, userId, 'user', 'alerts-evaluation e2e', userId)).key;
  rows = generateRows();
  const dir = mkdtempSync(join(tmpdir(), 'alerts-eval-'));
  const file = join(dir, 'focus_spike.csv');
  writeFileSync(file, focusCsv(rows));
  const out = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts/ingest.ts'),
      '--session',
      process.env.TEST_SESSION_FILE ?? '',
      '--org',
      orgId,
      '--timeout',
      '240',
      file,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' }, timeout: 270_000 },
  );
  if (out.status !== 0)
    throw new Error(`ingest failed (${out.status ?? out.signal}): ${out.stderr}${out.stdout}`);

  ids.email = await create('EC2 spike (email)', { notificationChannel: 'EMAIL', emails: [to] });
  ids.slack = await create('EC2 spike (slack)', { notificationChannel: 'SLACK', slackChannelId: channel });
  ids.teams = await create('EC2 spike (teams)', {
    notificationChannel: 'TEAMS',
    teamsChannelId: teamsHook(),
  });
  ids.snoozed = await create('EC2 spike (snoozed)', { notificationChannel: 'EMAIL', emails: [snoozedTo] });
  ids.archived = await create('EC2 spike (archived)', { notificationChannel: 'EMAIL', emails: [archivedTo] });
  await snoozeOneArchiveOther('costAlerts', token, { snoozed: ids.snoozed, archived: ids.archived }, 7);
}, 600_000);

jest.setTimeout(300_000);

describe('scheduled alert evaluation through the query engine', () => {
  test('the sweep fires once per channel on the last complete day, with the values in the message', async () => {
    await sweep(new Date());
    const mails = await atLeast(() => emailsTo(to), 1);
    expect(mails).toHaveLength(1);
    const spike = ec2On(rows, spikeDay);
    // The 28-day window ending on the spike day, the spike included.
    const window = Array.from({ length: 28 }, (_, i) =>
      ec2On(rows, ymd(Date.parse(`${spikeDay}T00:00:00Z`) - i * DAY_MS)),
    );
    const med = median(window);
    expect(spike).toBeGreaterThan(med * 1.5);
    const text = mails[0]!.body.text ?? '';
    expect(text).toContain(`EC2 cost on ${spikeDay} was ${usd(spike)}`);
    expect(text).toContain(`its 28-day median of ${usd(med)}`);
    expect(text).toContain(spikeDay);
    expect(mails[0]!.subject).toContain('EC2 spike (email)');

    // The chart: inline in the e-mail (its Content-ID used by the HTML), an 800 × 420 PNG, written
    // to test/artifacts/alerts-e2e with the e-mail's HTML to be looked at.
    const atts = mails[0]!.attachments ?? [];
    expect(atts.map((a) => [a.filename, a.contentType, a.contentDisposition, a.cid])).toEqual([
      ['alert-chart.png', 'image/png', 'inline', 'alert-chart.png'],
    ]);
    const png = Buffer.from(atts[0]!.content, 'base64');
    expect(pngSize(png)).toEqual({ width: 800, height: 420 });
    const out = join(__dirname, '..', 'artifacts', 'alerts-e2e');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'alert-chart.png'), png);
    writeFileSync(join(out, 'alert-email.html'), mails[0]!.body.html ?? '');

    const slack = await atLeast(() => slackTo(channel), 1);
    expect(slack).toHaveLength(1);
    expect(JSON.stringify(slack[0]!.body)).toContain(usd(spike));
    // The same chart uploaded into the Slack message's thread.
    const shares = (await captured('slack')).filter(
      (c) => c.path === '/slack/api/files.completeUploadExternal' && c.body.channel_id === channel,
    );
    expect(shares.map((c) => c.body.thread_ts)).toEqual([slack[0]!.answer?.ts]);
    const files = await slackFiles(channel);
    expect(files.map((f) => f.filename)).toEqual(['alert-chart.png']);
    expect(pngSize(Buffer.from(files[0]!.content ?? '', 'base64'))).toEqual({ width: 800, height: 420 });

    expect(await emailsTo(snoozedTo)).toHaveLength(0);
    expect(await emailsTo(archivedTo)).toHaveLength(0);

    const history = await costAlertHistory(ids.email!, token);
    expect(history.status).toBe(200);
    expect(history.body.items).toHaveLength(1);
    expect(history.body.items[0]).toMatchObject({
      evaluatedDay: spikeDay,
      triggered: true,
      notificationId: `${ids.email}:${spikeDay}`,
    });
    expect(history.body.items[0]!.values.spend).toBeCloseTo(spike, 6);
  });

  test('a second sweep and a redelivered evaluation send nothing more', async () => {
    await sweep(new Date());
    await sendEvaluationMessage({ orgId, alertId: ids.email, scheduledFor: new Date().toISOString() });
    await drain();
    // Give a late delivery the chance to show up before counting.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await slackTo(channel)).toHaveLength(1);
    expect(await emailsTo(snoozedTo)).toHaveLength(0);
    expect(await emailsTo(archivedTo)).toHaveLength(0);
  });

  test('widget data answers the last 30 complete days with the condition drawn over them', async () => {
    const res = await api<{
      id: string;
      series: {
        dataThrough: string;
        dates: string[];
        queries: { name: string; values: (number | null)[] }[];
        condition: number[];
        baselines: { key: string; values: (number | null)[] }[];
        fired: boolean[];
      } | null;
    }>('GET', `/alerts-v2/costAlerts/${ids.email}/widgetData`, { token });
    expect(res.status).toBe(200);
    const series = res.body.series!;
    expect(series.dataThrough).toBe(spikeDay);
    expect(series.dates).toHaveLength(30);
    expect(series.dates.at(-1)).toBe(spikeDay);
    expect(series.dates).not.toContain(lastRowDay);
    const spend = series.queries.find((q) => q.name === 'spend')!;
    for (const [i, d] of series.dates.entries()) expect(spend.values[i]).toBeCloseTo(ec2On(rows, d), 6);
    expect(series.condition.at(-1)).toBe(1);
    expect(series.condition.slice(0, -1).every((v) => v === 0)).toBe(true);
    expect(series.fired.at(-1)).toBe(true);
    const med = series.baselines.find((b) => b.key === 'rollingMedian(spend,28,DAY)')!;
    const window = Array.from({ length: 28 }, (_, i) =>
      ec2On(rows, ymd(Date.parse(`${spikeDay}T00:00:00Z`) - i * DAY_MS)),
    );
    expect(med.values.at(-1)).toBeCloseTo(median(window), 6);
  });
});

describe('POST /alerts-v2/costAlerts/backtest', () => {
  test('answers the days of the last 90 the body would have fired on and what dedup would have sent', async () => {
    const body = alertBody('EC2 spike (backtest)', { notificationChannel: 'EMAIL', emails: [to] });
    const res = await api<{
      dataThrough: string;
      from: string;
      days: number;
      fired: { day: string; values: Record<string, number | null> }[];
      notifications: string[];
      notificationCount: number;
    }>('POST', '/alerts-v2/costAlerts/backtest', { token, body });
    expect(res.status).toBe(200);
    // The rule, computed here from the rows: a missing day is no cost.
    const days = Array.from({ length: 90 }, (_, i) =>
      ymd(Date.parse(`${spikeDay}T00:00:00Z`) - (89 - i) * DAY_MS),
    );
    const fired = days.filter((d) => {
      const spend = ec2On(rows, d);
      const window = Array.from({ length: 28 }, (_, i) =>
        ec2On(rows, ymd(Date.parse(`${d}T00:00:00Z`) - i * DAY_MS)),
      );
      return spend > median(window) * 1.5 && spend > 100;
    });
    expect(fired).toContain(spikeDay);
    const sent: string[] = [];
    for (const d of fired)
      if (!sent.length || Date.parse(d) - Date.parse(sent.at(-1)!) >= 3 * DAY_MS) sent.push(d);
    expect(res.body).toMatchObject({ dataThrough: spikeDay, from: days[0], days: 90 });
    expect(res.body.fired.map((f) => f.day)).toEqual(fired);
    expect(res.body.fired.at(-1)!.values.spend).toBeCloseTo(ec2On(rows, spikeDay), 6);
    expect(res.body.notifications).toEqual(sent);
    expect(res.body.notificationCount).toBe(sent.length);
    // Nothing was stored.
    const list = await api<{ items: { name: string }[] }>('GET', '/alerts-v2/costAlerts?limit=100', {
      token,
    });
    expect(list.body.items.map((a) => a.name)).not.toContain('EC2 spike (backtest)');
    const bad = await api<{ error: string }>('POST', '/alerts-v2/costAlerts/backtest', {
      token,
      body: { ...body, condition: 'spend > foo' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/unknown query 'foo'/);
  });
});

describe('every link of every alert message opens the console on the right figures', () => {
  const ARTIFACTS = join(__dirname, '..', 'artifacts', 'links');
  const browser = suiteBrowser(ARTIFACTS);

  test('e-mail, Slack, Teams and test-send links: the explorer on the evaluated day, the alert, the list', async () => {
    // The fired alerts' messages (the first describe swept them) and a test send, as delivered.
    const testTo = `links-test-${run}@example.com`;
    const sent = await api('POST', '/alerts-v2/budgetAlerts/sendTest', {
      token,
      body: { notificationChannel: 'EMAIL', emails: [testTo] },
    });
    expect(sent.status).toBe(200);
    await drain();
    const [mail] = await atLeast(() => emailsTo(to), 1);
    const [slack] = await atLeast(() => slackTo(channel), 1);
    const [teams] = await atLeast(() => teamsTo(teamsHook()), 1);
    const [testMail] = await atLeast(() => emailsTo(testTo), 1);
    const consoleBase = `${s().baseUrl}/console/`;
    const spike = ec2On(rows, spikeDay);

    type Expect = { explorer: { title: string; figure: number } | null; alert: string | null };
    const messages: [string, unknown, Expect][] = [
      ['email', mail!.body, { explorer: { title: 'EC2 spike (email)', figure: spike }, alert: ids.email! }],
      ['slack', slack!.body, { explorer: { title: 'EC2 spike (slack)', figure: spike }, alert: ids.slack! }],
      ['teams', teams!.body, { explorer: { title: 'EC2 spike (teams)', figure: spike }, alert: ids.teams! }],
    ];
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await signInConsole(page, consoleBase, token);
    let visited = 0;
    for (const [kind, body, want] of messages) {
      // The chart: in the Teams card by URL (e-mail has it inline, Slack in the thread), served
      // without a credential, the same 800 × 420 PNG.
      const images = cardImagesOf(body);
      expect({ kind, images: images.length }).toEqual({ kind, images: kind === 'teams' ? 1 : 0 });
      for (const image of images) {
        expect(image.url.startsWith(`${s().baseUrl}/message-images/`)).toBe(true);
        expect(image.altText).toBe(
          `Chart: ${want.explorer!.title} per day through ${spikeDay}, the evaluated one in red`,
        );
        const got = await fetch(image.url);
        expect([got.status, got.headers.get('content-type')]).toEqual([200, 'image/png']);
        const png = Buffer.from(await got.arrayBuffer());
        expect(pngSize(png)).toEqual({ width: 800, height: 420 });
        writeFileSync(join(ARTIFACTS, 'teams-card-chart.png'), png);
        visited++;
      }
      const links = linksOf(body);
      // Every link is a console hash route: no `/explorer?…` or `/alerts/<id>` that 404s.
      expect({ kind, links: links.filter((l) => !l.startsWith(`${consoleBase}#/`)) }).toEqual({
        kind,
        links: [],
      });
      const explorer = links.filter((l) => l.startsWith(`${consoleBase}#/explorer?`));
      const pages = links.filter((l) => l.startsWith(`${consoleBase}#/alerts`));
      expect({ kind, count: explorer.length + pages.length }).toEqual({ kind, count: links.length });
      expect({ kind, explorer: explorer.length, pages: pages.length }).toEqual({
        kind,
        explorer: 1,
        pages: 1,
      });

      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        // The explorer: the alert's queries over the evaluated day, run as the page opens.
        await page.goto(explorer[0]!);
        await page.waitForSelector(`h1:text("Explorer: ${want.explorer!.title}")`, { timeout: 30_000 });
        await page.waitForSelector('.result table tbody tr', { timeout: 60_000 });
        const table = (await page.locator('.result table').last().textContent()) ?? '';
        expect({ kind, has: table.includes(consoleMoney(want.explorer!.figure)) }).toEqual({
          kind,
          has: true,
        });
        // The address now names the view shown (to copy and share): the link's state, its chart added.
        const shown = page.url();
        expect(parseExplorerQueryString(shown.slice(shown.indexOf('?') + 1))).toEqual({
          ...parseExplorerQueryString(explorer[0]!.slice(explorer[0]!.indexOf('?') + 1)),
          chartType: 'BAR',
        });
        await page.screenshot({ path: join(ARTIFACTS, `${kind}-explorer-${width}.png`), fullPage: true });
        visited++;

        await page.goto(pages[0]!);
        // The alert's page: its name, and the history row of the firing with the figure it fired on.
        expect(pages[0]).toBe(`${consoleBase}#/alerts/${want.alert}`);
        await page.waitForSelector(`h1:text("${want.explorer!.title}")`, { timeout: 30_000 });
        await page.waitForSelector('table.history tbody tr', { timeout: 30_000 });
        const row = page.locator('table.history tbody tr').first();
        expect(await row.locator('td').first().textContent()).toBe(spikeDay);
        // The values as the console words them (the query's alias, money as the messages write it).
        expect(await row.locator('td').nth(2).textContent()).toContain(`EC2 cost ${usd(spike)}`);
        await page.screenshot({ path: join(ARTIFACTS, `${kind}-page-${width}.png`), fullPage: true });
        visited++;
      }
    }
    // The test send, a budget-alert sample, names no budget: its one link is the Budgets list.
    const testLinks = linksOf(testMail!.body);
    expect(testLinks).toEqual([`${consoleBase}#/budgets`]);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(testLinks[0]!);
      await page.waitForSelector('h1:text("Budgets")', { timeout: 30_000 });
      // Loaded: this organisation has no budget, so the page says how to create one.
      await page.waitForSelector('text=No budgets yet', { timeout: 30_000 });
      await page.screenshot({ path: join(ARTIFACTS, `test-budgets-${width}.png`), fullPage: true });
      visited++;
    }
    expect(visited).toBe(15);
    expect(errors).toEqual([]);
    await page.close();
  });
});
