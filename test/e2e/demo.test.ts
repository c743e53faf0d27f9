import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEMO_BUDGET_MONTHS,
  DEMO_NAMES,
  demoBudgetAmount,
  demoDashboardBody,
  seedDemoContent,
} from '../../infra/local/demo-hook';
import type { DemoSeed } from '../../infra/local/seed';
import { num, parseCsv } from '../integration/warehouse/support';
import { costAlertHistory } from '../support/alert-messages';
import { signInConsole, suiteBrowser } from '../support/browser';
import { demoCommitmentRows } from '../support/commitment-exports';
import { api, listAllPages, session } from '../support/session';

/**
 * The demo organisation of `npm start` (the e2e stack starts the same way): a starter dashboard,
 * a weekly report, two alerts (one fired with history whose figure is the sum of the seeded
 * billing rows of its day) and a budget by provider with its alert, made once however often the
 * seed runs. Screenshots of the console on
 * them go to test/artifacts/demo/.
 */
const s = () => session();
const admin = () => s().apiKeys.admin;
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'demo');

interface Named {
  id: string;
  name: string;
}
const all = (path: string) => listAllPages<Named>(admin(), path);
const named = (items: Named[], name: string) => items.filter((i) => i.name === name);

/** The demo organisation's raw billing rows: its seeded FOCUS file and the generated CUR of its commitments. */
function rawRows() {
  const seedFile = JSON.parse(readFileSync(join(s().stateDir, 'warehouse-seed.json'), 'utf8')) as {
    orgs: { orgId: string; key: string }[];
  };
  const demo = seedFile.orgs.find((o) => o.orgId === s().orgId)!;
  return [
    ...parseCsv(readFileSync(join(s().stateDir, 'bucket', demo.key), 'utf8')),
    ...demoCommitmentRows(s().stateDir),
  ];
}

const drain = async () => {
  const res = await api<{ drained: boolean }>('POST', '/_local/drain', { body: { timeoutMs: 120_000 } });
  expect(res.body.drained).toBe(true);
};

const browser = suiteBrowser(ARTIFACTS);
beforeAll(async () => {
  // The first sweep the seed asked for is run by the alert workers.
  await drain();
}, 180_000);
jest.setTimeout(240_000);

describe('the demo organisation shows the product', () => {
  test('a starter dashboard: spend by provider and by service, the daily trend, the top services', async () => {
    const [d] = named(await all('/dashboard-v2'), DEMO_NAMES.dashboard);
    expect(d).toBeDefined();
    const read = await api<{ type: string; widgets: Record<string, unknown>[] }>(
      'GET',
      `/dashboard-v2/${d!.id}`,
      { token: s().apiKeys.member },
    );
    expect(read.status).toBe(200);
    expect(read.body.type).toBe('PUBLIC');
    const shape = read.body.widgets.map((w) => {
      const req = (w.source as { request: { period: { aggBy: string }; queries: Record<string, unknown>[] } })
        .request;
      return [w.title, req.queries[0]!.chartType, req.queries[0]!.groupBy ?? null, req.period.aggBy];
    });
    expect(shape).toEqual([
      ['Spend by provider', 'BAR', 'provider', 'Month'],
      ['Spend by service', 'BAR', 'service', 'Month'],
      ['Daily trend', 'LINE', null, 'Day'],
      ['Top services', 'TABLE', 'service', 'Period'],
    ]);
    expect(demoDashboardBody().widgets).toHaveLength(4);
  });

  test('a weekly report e-mailed to the admin, its snapshot taken from the dashboard', async () => {
    const [r] = named(await all('/reports'), DEMO_NAMES.report);
    expect(r).toBeDefined();
    const read = await api<Record<string, unknown>>('GET', `/reports/${r!.id}`, { token: admin() });
    expect(read.body).toMatchObject({
      scheduledPeriod: 'WEEKLY',
      scheduledWeekday: 1,
      status: 'ACTIVE',
      destinations: [{ destinationType: 'EMAIL', destinationValues: [s().emails.admin] }],
    });
    expect(read.body.nextRunAt).toEqual(expect.any(String));
    const [d] = named(await all('/dashboard-v2'), DEMO_NAMES.dashboard);
    expect(read.body.widgets).toContainEqual(
      expect.objectContaining({ type: 'GRAPH_SNAPSHOT', dashboardId: d!.id, widgetKey: 'trend' }),
    );
  });

  test('two alerts; one fired on the last complete day with the spend of the seeded rows of that day', async () => {
    const alerts = await all('/alerts-v2/costAlerts');
    const [fired] = named(alerts, DEMO_NAMES.firedAlert);
    const [quiet] = named(alerts, DEMO_NAMES.quietAlert);
    expect(fired && quiet).toBeDefined();
    const history = await costAlertHistory(fired!.id, admin());
    expect(history.status).toBe(200);
    const hit = history.body.items.find((h) => h.triggered);
    expect(hit).toBeDefined();
    expect(hit!.notificationId).toBe(`${fired!.id}:${hit!.evaluatedDay}`);
    // The day's spend from the raw billing rows (`cost` is BilledCost).
    const rows = rawRows().filter((r) => (r.ChargePeriodStart ?? '').startsWith(hit!.evaluatedDay));
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.BillingCurrency))).toEqual(new Set(['USD']));
    expect(hit!.values.spend).toBeCloseTo(
      rows.reduce((a, r) => a + num(r.BilledCost), 0),
      6,
    );
    // The quiet one was evaluated too (its history is there), without notifying.
    const quietHistory = await costAlertHistory(quiet!.id, admin());
    expect(quietHistory.body.items.length).toBeGreaterThan(0);
  });

  test("a budget by provider: last month's spend of each provider plus 10 %, with a budget alert", async () => {
    const [b] = named(await all('/budgets'), DEMO_NAMES.budget);
    expect(b).toBeDefined();
    const budget = await api<{
      startMonth: string;
      groupBy: string;
      lines: { value: string; owner: string; amounts: Record<string, number> }[];
    }>('GET', `/budgets/${b!.id}`, { token: admin() });
    expect(budget.status).toBe(200);
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
      .toISOString()
      .slice(0, 7);
    expect(budget.body.startMonth).toBe(lastMonth);
    expect(budget.body.groupBy).toBe('provider');
    // Last month's BilledCost per provider, from the raw rows.
    const spend = new Map<string, number>();
    for (const r of rawRows().filter((r) => (r.ChargePeriodStart ?? '').startsWith(lastMonth)))
      spend.set(r.ProviderName!, (spend.get(r.ProviderName!) ?? 0) + num(r.BilledCost));
    expect(spend.size).toBeGreaterThan(1);
    expect(Object.fromEntries(budget.body.lines.map((l) => [l.value, l.amounts[lastMonth]]))).toEqual(
      Object.fromEntries([...spend].map(([p, v]) => [p, demoBudgetAmount(v)])),
    );
    for (const line of budget.body.lines) {
      expect(Object.keys(line.amounts)).toHaveLength(DEMO_BUDGET_MONTHS);
      expect(line.owner).toBe(s().emails.admin);
    }
    // Its status answers this month's figures, every provider a line.
    const status = await api<{
      lines: { value: string; budget: number; actual: number; forecast: { value: number } | null }[];
      total: { budget: number; actual: number };
      burn: { days: string[]; actual: (number | null)[]; budget: number[] } | null;
    }>('GET', `/budgets/${b!.id}/status`, { token: admin() });
    expect(status.status).toBe(200);
    const thisMonth = now.toISOString().slice(0, 7);
    expect(status.body.total.budget).toBeCloseTo(
      budget.body.lines.reduce((a, l) => a + (l.amounts[thisMonth] ?? 0), 0),
      6,
    );
    for (const p of spend.keys()) expect(status.body.lines.map((l) => l.value)).toContain(p);
    // The burn: cumulative actual to dataThrough ends at the month's actual, the budget at its amount.
    const burn = status.body.burn!;
    expect(burn.days[0]).toBe(`${thisMonth}-01`);
    expect(burn.actual.filter((x) => x !== null).at(-1)).toBeCloseTo(status.body.total.actual, 6);
    expect(burn.budget.at(-1)).toBeCloseTo(status.body.total.budget, 6);
    // Every provider is a line: nothing is left for Other, not even rounding dust.
    const other = status.body.lines.find((l) => l.value === 'Other');
    if (other) expect([other.actual, other.forecast?.value ?? 0]).toEqual([0, 0]);

    const [alert] = named(await all('/alerts-v2/budgetAlerts'), DEMO_NAMES.budgetAlert);
    const read = await api<{
      budgetId: string;
      thresholds: { value: number; basis: string; budgetAlertId: string; costAlertId: null }[];
    }>('GET', `/alerts-v2/budgetAlerts/${alert!.id}`, { token: admin() });
    expect(read.body.budgetId).toBe(b!.id);
    expect(read.body.thresholds.map((t) => [t.value, t.basis])).toEqual([
      [80, 'ACTUAL'],
      [100, 'FORECASTED'],
    ]);
    for (const t of read.body.thresholds) expect([t.budgetAlertId, t.costAlertId]).toEqual([alert!.id, null]);
  });

  test('seeding again makes nothing twice (a start interrupted before its marker included)', async () => {
    const count = async () => [
      named(await all('/dashboard-v2'), DEMO_NAMES.dashboard).length,
      named(await all('/reports'), DEMO_NAMES.report).length,
      named(await all('/alerts-v2/costAlerts'), DEMO_NAMES.firedAlert).length,
      named(await all('/alerts-v2/costAlerts'), DEMO_NAMES.quietAlert).length,
      named(await all('/budgets'), DEMO_NAMES.budget).length,
      named(await all('/alerts-v2/budgetAlerts'), DEMO_NAMES.budgetAlert).length,
    ];
    expect(await count()).toEqual([1, 1, 1, 1, 1, 1]);
    const seed = { orgId: s().orgId, apiKeys: s().apiKeys, emails: s().emails } as DemoSeed;
    // No marker in this folder: every item is looked up by name and found.
    const again = await seedDemoContent(seed, {
      baseUrl: s().baseUrl,
      stateDir: mkdtempSync(join(tmpdir(), 'demo-again-')),
    });
    expect(again).not.toBeNull();
    expect(await count()).toEqual([1, 1, 1, 1, 1, 1]);
    // With the marker (the stack's own folder), nothing is even looked up.
    expect(await seedDemoContent(seed, { baseUrl: s().baseUrl, stateDir: s().stateDir })).toBeNull();
  });

  test('the console opens on them: the dashboard drawn, the alerts, report and budget listed (1280 and 390 px)', async () => {
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await signInConsole(page, `${s().baseUrl}/console/`, admin());
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${s().baseUrl}/console/#/dashboards`);
      await page.click(`a:text("${DEMO_NAMES.dashboard}")`);
      await page.waitForSelector(`h1:text("${DEMO_NAMES.dashboard}")`, { timeout: 30_000 });
      // Widgets draw when seen: each is scrolled to, and its figures wait for.
      const widgets = page.locator('article.widget');
      expect(await widgets.count()).toBe(4);
      for (let i = 0; i < 4; i++) {
        await widgets.nth(i).scrollIntoViewIfNeeded();
        await widgets.nth(i).locator('canvas, table tbody tr').first().waitFor({ timeout: 60_000 });
      }
      expect(await page.locator('article.widget[data-state="error"]').count()).toBe(0);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(ARTIFACTS, `dashboard-${width}.png`), fullPage: true });
      await page.goto(`${s().baseUrl}/console/#/alerts`);
      await page.waitForSelector(`a:text("${DEMO_NAMES.firedAlert}")`, { timeout: 30_000 });
      await page.waitForSelector(`a:text("${DEMO_NAMES.quietAlert}")`, { timeout: 30_000 });
      await page.screenshot({ path: join(ARTIFACTS, `alerts-${width}.png`), fullPage: true });
      await page.goto(`${s().baseUrl}/console/#/reports`);
      await page.waitForSelector(`a:text("${DEMO_NAMES.report}")`, { timeout: 30_000 });
      await page.goto(`${s().baseUrl}/console/#/budgets`);
      await page.waitForSelector(`a:text("${DEMO_NAMES.budget}")`, { timeout: 30_000 });
      // The list says where the month stands: the total's figures of the budget's status.
      const [listed] = named(await all('/budgets'), DEMO_NAMES.budget);
      const status = await api<{ total: { budget: number; actual: number } }>(
        'GET',
        `/budgets/${listed!.id}/status`,
        {
          token: admin(),
        },
      );
      const money = (x: number) =>
        new Intl.NumberFormat('en-US', {
          style: 'currency',
          currency: 'USD',
          minimumFractionDigits: 2,
        }).format(x);
      const figures = page.locator('.budget-list li', { hasText: DEMO_NAMES.budget }).locator('.figures');
      await figures.locator(`text=actual ${money(status.body.total.actual)}`).waitFor({ timeout: 60_000 });
      expect(await figures.textContent()).toContain(`budget ${money(status.body.total.budget)}`);
      expect(await figures.textContent()).toMatch(/\d+ of \d+ lines forecast over/);
      await page.screenshot({ path: join(ARTIFACTS, `budgets-${width}.png`), fullPage: true });
      await page.click(`a:text("${DEMO_NAMES.budget}")`);
      await page.waitForSelector(`h1:text("${DEMO_NAMES.budget}")`, { timeout: 30_000 });
      await page.waitForSelector('table.budget-status tbody tr', { timeout: 60_000 });
      await page.locator('.card.burn canvas').first().waitFor({ timeout: 60_000 });
      await page.waitForSelector(`text=${DEMO_NAMES.budgetAlert}`, { timeout: 30_000 });
      await page.screenshot({ path: join(ARTIFACTS, `budget-${width}.png`), fullPage: true });
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
