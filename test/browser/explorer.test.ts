import type { Page } from 'playwright-core';
import { generateFocusRows } from '../../infra/local/demo-data/generator';
import { putEvaluation } from '../../shared/db/alerts-repo';
import type { AlertEvaluation } from '../../shared/model/alerts';
import { type CsvRow, num, readCsv } from '../integration/warehouse/support';
import { usd as msgUsd } from '../support/alert-messages';
import { CONSOLE_SIZES, closeCheckedPage } from '../support/browser';
import { ingestOk } from '../support/cli';
import { consoleSuite } from '../support/console-suite';
import { writeFocusCsv } from '../support/daily-focus';
import { consoleMoney } from '../support/explorer';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { DAY_MS, monthStart, ymd } from '../support/suite';
import { costQuery, thresholdBody } from '../unit/alerts/fixtures';

/**
 * The explorer a user can act on (issues 29 §4 and 27, console parts), in headless Chromium on the
 * local stack, in an organisation of its own whose raw rows are written here: the explorer opens on
 * the last 3 months by service with that state in its address, its figures the sums of the raw
 * rows; "Compare to previous period" adds the previous period's figures, the change and the %
 * change; a forecast shades its intervals and states its measured accuracy as the API answers it;
 * an alert's history shows each firing's top contributors. Screenshots at 390 and 1440 px:
 * test/artifacts/console-pages/.
 */
const s = () => session();
const run = Date.now().toString(36);
const orgId = `org_explr${run}`;
const signedUsd = (x: number) => (x > 0 ? `+${consoleMoney(x)}` : consoleMoney(x));
/** A change as the alert messages write it: a true minus sign for a fall. */
const msgSigned = (x: number) => `${x >= 0 ? '+' : '−'}${msgUsd(Math.abs(x))}`;

const ui = consoleSuite();
let key = '';
let rows: CsvRow[] = [];
/** `YYYY-MM`, oldest first: the six whole months before the current one. */
let months: string[] = [];

beforeAll(async () => {
  key = await freshOrg(orgId, `user_explr${run}`, `explorer ${run}`);
  const now = new Date();
  const month = (o: number) => monthStart(now, o).slice(0, 7);
  months = [6, 5, 4, 3, 2, 1].map(month);
  const generated = generateFocusRows({
    seed: 2929,
    months: [...months, month(0)],
    resourcesPerProvider: 2,
    providers: ['AWS'],
    until: ymd(Date.parse(`${ymd(Date.now())}T00:00:00Z`) - DAY_MS),
    accountPrefix: `ex${run}`,
  });
  const file = writeFocusCsv(generated, 'focus_explorer.csv');
  rows = readCsv(file);
  ingestOk(orgId, file);
}, 600_000);

/** Billed cost of the raw rows in `month` (`YYYY-MM`), all or of one service. */
const billed = (month: string, service?: string) =>
  rows
    .filter((r) => String(r.ChargePeriodStart).slice(0, 7) === month)
    .filter((r) => service === undefined || r.ServiceName === service)
    .reduce((a, r) => a + num(r.BilledCost), 0);

/** Billed cost of the raw rows over the `months`, all or of one service. */
const billedOver = (months: string[], service?: string) => months.reduce((a, m) => a + billed(m, service), 0);

const services = () => [...new Set(rows.map((r) => String(r.ServiceName)))];

/** The explorer's result table: header cells, and each row's cells by its first one. */
async function resultTable(page: Page) {
  const table = page.locator('.result table.figures');
  const head = await table.locator('thead th').allTextContents();
  const body: Record<string, string[]> = {};
  for (const tr of await table.locator('tbody tr, tfoot tr').all()) {
    const cells = await tr.locator('td').allTextContents();
    body[cells[0]!] = cells;
  }
  return { head, body };
}

const monthWords = (m: string) =>
  new Date(`${m}-01T00:00:00Z`).toLocaleString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });

async function drawn(page: Page) {
  await page.waitForSelector('.result .chart[data-plot]', { timeout: 90_000 });
  await page.waitForSelector('.result table.figures tfoot', { timeout: 30_000 });
}

it('opens on the last 3 months by service, that view in its address, figures summed from the raw rows', async () => {
  const last3 = months.slice(3);
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    await page.click('a[href="#/explorer"]');
    await drawn(page);
    expect(new URL(page.url()).hash).toBe(
      '#/explorer?metric=cost&groupBy=service&datePreset=LAST_3_MONTHS&aggBy=Month&chart=BAR',
    );
    const { head, body } = await resultTable(page);
    expect(head).toEqual(['Series', ...last3.map(monthWords), 'Total']);
    const total = billedOver(last3);
    expect(body.Total).toEqual(['Total', ...last3.map((m) => consoleMoney(billed(m))), consoleMoney(total)]);
    for (const service of services())
      expect(body[service]).toEqual([
        service,
        ...last3.map((m) => consoleMoney(billed(m, service))),
        consoleMoney(billedOver(last3, service)),
      ]);
    await closeCheckedPage(page, errors, ui.shot(`explorer-default-${size.name}.png`));
  }
}, 300_000);

it('compares with the previous period: its total, the change and the % change, the toggle in the address', async () => {
  const last3 = months.slice(3);
  const before3 = months.slice(0, 3);
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    await page.click('a[href="#/explorer"]');
    await drawn(page);
    await page.check('form.explorer label:has-text("Compare to previous period") input');
    await page.click('form.explorer button[type=submit]');
    await page.waitForSelector('.result table.figures th:text("% change")', { timeout: 90_000 });
    expect(new URL(page.url()).hash).toContain('&compare=1');
    const { head, body } = await resultTable(page);
    expect(head.slice(-4)).toEqual(['Total', 'Previous period', 'Change', '% change']);
    const now = billedOver(last3);
    const before = billedOver(before3);
    const pct = ((now - before) / before) * 100;
    expect(body.Total!.slice(-4)).toEqual([
      consoleMoney(now),
      consoleMoney(before),
      signedUsd(now - before),
      `${pct > 0 ? '+' : ''}${pct.toFixed(1)}%`,
    ]);
    const top = services()[0]!;
    const sNow = billedOver(last3, top);
    const sBefore = billedOver(before3, top);
    expect(body[top]!.slice(-3)).toEqual([
      consoleMoney(sBefore),
      signedUsd(sNow - sBefore),
      `${sNow >= sBefore ? '+' : ''}${(((sNow - sBefore) / sBefore) * 100).toFixed(1)}%`,
    ]);
    // The link restores the comparison.
    await page.reload();
    await page.waitForSelector('.result table.figures th:text("% change")', { timeout: 90_000 });
    expect(await page.isChecked('form.explorer label:has-text("Compare to previous period") input')).toBe(
      true,
    );
    await closeCheckedPage(page, errors, ui.shot(`explorer-compare-${size.name}.png`));
  }
}, 300_000);

it('draws a forecast with its accuracy as the API measured it', async () => {
  const request = {
    period: { datePreset: 'LAST_3_MONTHS', aggBy: 'Month', forecastDays: 30 },
    queries: [{ type: 'cost', name: 'a', metricId: 'cost', groupBy: 'service' }],
  };
  const answer = await api<{
    queries: {
      series: {
        group: { service: string };
        forecastAccuracy?: {
          accuracy: { horizonDays: number; origins: number; totalError: { median: number } };
        };
      }[];
    }[];
  }>('POST', '/queries/explorer', { token: key, body: { request } });
  expect(answer.status).toBe(200);
  const expected = answer.body.queries[0]!.series.map((x) => {
    const a = x.forecastAccuracy!.accuracy;
    return `${x.group.service}: within ${(a.totalError.median * 100).toFixed(1)}% on ${a.horizonDays}-day totals over the last ${Math.round(a.origins / 7)} weeks`;
  });
  expect(expected.length).toBeGreaterThan(0);
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    await page.goto(
      `${s().baseUrl}/console/#/explorer?metric=cost&groupBy=service&datePreset=LAST_3_MONTHS&aggBy=Month&chart=LINE&forecastDays=30`,
    );
    await page.waitForSelector('.forecast-notes li', { timeout: 120_000 });
    expect(await page.locator('form.explorer label:has-text("Forecast") select').inputValue()).toBe('30');
    const notes = await page.locator('.forecast-notes li').allTextContents();
    expect(notes).toHaveLength(expected.length);
    for (const [i, e] of expected.entries()) expect(notes[i]).toContain(e);
    await page.waitForSelector('.result .chart[data-plot]', { timeout: 30_000 });
    await closeCheckedPage(page, errors, ui.shot(`explorer-forecast-${size.name}.png`));
  }
}, 300_000);

it("shows a firing's top contributors in the alert's history, nothing for an entry without them", async () => {
  const made = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
    token: key,
    body: thresholdBody({
      name: `Explorer ${run}`,
      currency: 'USD',
      queries: [costQuery('spend', { metricId: 'cost' })],
    }),
  });
  expect(made.status).toBe(201);
  // The last two whole months' cost by service, from the raw rows: the contributors as the
  // evaluator records them (docs/alerts.md, "Root causes").
  const [m1, m2] = months.slice(-2) as [string, string];
  const causes = services()
    .map((label) => ({ label, before: billed(m1, label), after: billed(m2, label) }))
    .map((c) => ({ ...c, change: c.after - c.before }))
    .sort((x, y) => Math.abs(y.change) - Math.abs(x.change))
    .slice(0, 3);
  const before = billed(m1);
  const after = billed(m2);
  const rootCauses = {
    dimension: 'service',
    query: 'Cost',
    period: { start: `${m2}-01`, end: `${m2}-28` },
    baseline: { start: `${m1}-01`, end: `${m1}-28`, label: 'the previous month' },
    before,
    after,
    change: after - before,
    top: causes.map((c) => ({
      ...c,
      changePercent: (c.change / c.before) * 100,
      share: (c.change / (after - before)) * 100,
    })),
    explained: (causes.reduce((x, c) => x + c.change, 0) / (after - before)) * 100,
  };
  const entry = (at: string, extra: object): AlertEvaluation => ({
    alertId: made.body.id,
    evaluatedAt: at,
    evaluatedDay: at.slice(0, 10),
    values: { spend: after },
    triggered: true,
    suppressedBy: null,
    notificationId: null,
    ...extra,
  });
  await putEvaluation(orgId, entry(new Date(Date.now() - 2 * DAY_MS).toISOString(), {}));
  await putEvaluation(
    orgId,
    entry(new Date(Date.now() - DAY_MS).toISOString(), { notificationId: `ntf_${run}`, rootCauses }),
  );
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    await page.goto(`${s().baseUrl}/console/#/alerts/${made.body.id}`);
    await page.waitForSelector('table.history tbody tr:nth-child(2)', { timeout: 60_000 });
    const [fired, plain] = await page.locator('table.history tbody tr').all();
    const cell = fired!.locator('td[data-label="Top contributors"]');
    expect(await cell.locator('p').textContent()).toContain(
      `Top contributors by service (Cost: ${msgUsd(after)} against ${msgUsd(before)} for the previous month, ${msgSigned(after - before)}`,
    );
    const lines = await cell.locator('li').allTextContents();
    expect(lines).toHaveLength(causes.length);
    causes.forEach((c, i) => {
      expect(lines[i]).toContain(
        `${c.label}: ${msgUsd(c.before)} → ${msgUsd(c.after)} (${msgSigned(c.change)}`,
      );
    });
    expect(await plain!.locator('td[data-label="Top contributors"]').textContent()).toBe('—');
    await closeCheckedPage(page, errors, ui.shot(`alert-causes-${size.name}.png`));
  }
}, 300_000);
