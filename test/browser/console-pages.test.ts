import type { Page } from 'playwright-core';
import { CONSOLE_SIZES, closeCheckedPage, sidewaysScroll } from '../support/browser';
import { tokenCli } from '../support/cli';
import { consoleSuite } from '../support/console-suite';
import { consoleMoney } from '../support/explorer';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { conditionBody, costQuery } from '../unit/alerts/fixtures';

/**
 * The console as a FinOps user reads it (issue 29 §4 and §5), in headless Chromium on the local
 * stack: figures in money with their currency, queries by their label, presets, metrics and alert
 * conditions in words, who is signed in to which organisation, the dashboards list's pages, search
 * and refresh, widget titles as page text, a half-width table's Total in view, legends under the
 * plot; then every page at 390 and 1440 px: no sideways scroll, no legend over a plot. Works in
 * `org_acme` (the demo's second organisation, its data recent) and, for the list's pages, an
 * organisation of its own. Screenshots: test/artifacts/console-pages/.
 */
const s = () => session();
const SIZES = CONSOLE_SIZES;

interface Answer {
  period: { aggBy: string };
  currency: string;
  queries: {
    series: { group: Record<string, string | null>; points: { date: string; value: number | null }[] }[];
  }[];
}

const ui = consoleSuite();
let jwt = '';
let dashboardId = '';
let alertId = '';
let budgetId = '';
/** The organisation's newest upload, if any (the demo's are made by `npm start`). */
let uploadId = '';

const widget = (
  key: string,
  x: number,
  y: number,
  title: string,
  chartType: string,
  period: object,
  groupBy?: string,
) => ({
  key,
  x,
  y,
  w: 6,
  h: 4,
  title,
  source: {
    type: 'advancedExplorer',
    request: {
      period,
      queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType, groupBy: groupBy ?? null }],
    },
  },
});

beforeAll(async () => {
  jwt = tokenCli(s().users.outsider, s().otherOrgId, 'admin');
  const made = await api<{ id: string }>('POST', '/dashboard-v2', {
    token: jwt,
    body: {
      name: `Console pages ${Date.now()}`,
      type: 'PUBLIC',
      widgets: [
        widget(
          'w1',
          0,
          0,
          'Monthly cost by provider',
          'BAR',
          { datePreset: 'LAST_6_MONTHS', aggBy: 'Month' },
          'provider',
        ),
        widget(
          'w2',
          6,
          0,
          'Services by month',
          'TABLE',
          { datePreset: 'LAST_12_MONTHS', aggBy: 'Month' },
          'ServiceName',
        ),
        widget('w3', 0, 4, 'Total cost', 'TABLE', { datePreset: 'LAST_3_MONTHS', aggBy: 'Period' }),
        widget(
          'w4',
          6,
          4,
          'Cost by service',
          'WATERFALL',
          { datePreset: 'LAST_3_MONTHS', aggBy: 'Period' },
          'ServiceName',
        ),
      ],
    },
  });
  expect(made.status).toBe(201);
  dashboardId = made.body.id;
  const alert = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
    token: jwt,
    body: conditionBody({
      name: `Console pages alert ${Date.now()}`,
      queries: [costQuery('s3', { alias: 'S3 cost' })],
      condition: 's3 > rollingMedian(s3, 28, DAY) * 1.5',
    }),
  });
  expect(alert.status).toBe(201);
  alertId = alert.body.id;
  const month = new Date().toISOString().slice(0, 7);
  const budget = await api<{ id: string }>('POST', '/budgets', {
    token: jwt,
    body: {
      name: `Console pages budget ${Date.now()}`,
      currency: 'USD',
      groupBy: 'provider',
      startMonth: month,
      lines: [
        { value: 'AWS', owner: 'ops@example.com', amounts: { [month]: 5000 } },
        { value: 'Google Cloud', owner: null, amounts: { [month]: 1000 } },
      ],
    },
  });
  expect(budget.status).toBe(201);
  budgetId = budget.body.id;
  const uploads = await api<{ items: { id: string }[] }>('GET', '/billing/uploads?limit=1', { token: jwt });
  expect(uploads.status).toBe(200);
  uploadId = uploads.body.items[0]?.id ?? '';
  // Ten minutes when Debian's chromium has to be installed first (test/support/browser.ts).
}, 600_000);

async function open(
  size: { width: number; height: number },
  credential = jwt,
): Promise<{ page: Page; errors: string[] }> {
  return ui.open(credential, size);
}

const rectOf = (text: string | null) => {
  const [x, y, w, h] = (text ?? '').split(',').map(Number);
  return { x: x!, y: y!, w: w!, h: h! };
};

/** Charts whose legend covers part of the plot (the layout marks of console/src/chart.tsx). */
async function legendsOverPlots(page: Page): Promise<string[]> {
  const charts = await page.locator('.chart[data-plot]').evaluateAll((els) =>
    els.map((el) => ({
      label: el.getAttribute('aria-label'),
      plot: el.getAttribute('data-plot'),
      legend: el.getAttribute('data-legend'),
    })),
  );
  return charts
    .filter((c) => c.legend)
    .filter((c) => {
      const p = rectOf(c.plot);
      const l = rectOf(c.legend);
      return l.x < p.x + p.w && p.x < l.x + l.w && l.y < p.y + p.h && p.y < l.y + l.h;
    })
    .map((c) => `${c.label}: legend ${c.legend} over plot ${c.plot}`);
}

const overflow = sidewaysScroll;

async function allDrawn(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document.querySelectorAll('.widget').length === 4 &&
      [...document.querySelectorAll('.widget')].every((w) => w.getAttribute('data-state') !== 'loading'),
    undefined,
    { timeout: 60_000 },
  );
  // Charts are drawn as they come into view: scroll down the page once.
  await page.evaluate(async () => {
    for (let y = 0; y <= document.body.scrollHeight; y += 400) {
      window.scrollTo(0, y);
      await new Promise((r) => setTimeout(r, 60));
    }
    window.scrollTo(0, 0);
  });
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('.widget')].every((w) =>
        w.querySelector('.chart[data-plot], table, .empty, .error'),
      ),
    undefined,
    { timeout: 60_000 },
  );
}

describe('the console reads like a product (issue 29 §4)', () => {
  it('says who is signed in to which organisation, by name', async () => {
    const users = await api<{ items: { id: string; name: string }[] }>('GET', '/iac/users?limit=100', {
      token: jwt,
    });
    const org = await api<{ name: string }>('GET', '/organization', { token: jwt });
    const user = users.body.items.find((u) => u.id === s().users.outsider);
    const name = user?.name || s().users.outsider;
    const { page, errors } = await open(SIZES[1]!);
    // From GET /me: the user's name, the organisation's, the role the token was made with.
    const want = `Signed in as ${name} · ${org.body.name} · admin`;
    await page.waitForFunction((t) => document.querySelector('.top .identity')?.textContent === t, want, {
      timeout: 30_000,
    });
    // The dashboard's versions name their author too.
    await page.goto(`${s().baseUrl}/console/#/dashboards/${dashboardId}`);
    await page.click('button:text-matches("^Versions")');
    await page.waitForSelector('ol.versions li');
    expect(await page.locator('ol.versions li').first().textContent()).toContain(` · ${name} · `);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('says the same for a member: their own name and role, on the phone too', async () => {
    // The demo organisation's member, signed in with a session token of the member role.
    const member = tokenCli(s().users.member, s().orgId, 'member');
    const users = await api<{ items: { id: string; name: string }[] }>('GET', '/iac/users?limit=100', {
      token: s().apiKeys.admin,
    });
    const org = await api<{ name: string }>('GET', '/organization', { token: member });
    const name = users.body.items.find((u) => u.id === s().users.member)?.name || s().users.member;
    const want = `Signed in as ${name} · ${org.body.name} · member`;
    for (const size of SIZES) {
      const { page, errors } = await open(size, member);
      await page.waitForFunction((t) => document.querySelector('.top .identity')?.textContent === t, want, {
        timeout: 30_000,
      });
      expect(await page.locator('.top .identity .role').textContent()).toBe('member');
      await page.screenshot({ path: ui.shot(`header-member-${size.width}.png`) });
      expect(errors).toEqual([]);
      await page.close();
    }
  }, 120_000);

  it('shows a dashboard with titles as text, money in the tooltip, words for presets and the Total in view', async () => {
    const data = await api<Answer>('GET', `/dashboard-v2/${dashboardId}/widgets/w1/data`, { token: jwt });
    expect(data.status).toBe(200);
    for (const size of SIZES) {
      const { page, errors } = await open(size);
      await page.goto(`${s().baseUrl}/console/#/dashboards/${dashboardId}`);
      await allDrawn(page);
      const titles = await page.locator('.widget h2').allTextContents();
      expect(titles).toEqual([
        'Monthly cost by provider',
        'Services by month',
        'Total cost',
        'Cost by service',
      ]);
      // Presets in words; the value sent stays the code.
      const presets = await page.locator('.filters select option').allTextContents();
      expect(presets).toContain('Last 90 days');
      expect(presets.join()).not.toMatch(/TRAILING_|LAST_/);
      // A query without an alias or a grouping is named by its metric, not "a".
      expect(await page.locator('.widget[aria-label="Total cost"] tbody td').first().textContent()).toBe(
        'Cost',
      );

      // The tooltip of the last month: each provider's figure in dollars, the month in words.
      const bars = page.locator('.widget[aria-label="Monthly cost by provider"] .chart');
      await bars.scrollIntoViewIfNeeded();
      const plot = rectOf(await bars.getAttribute('data-plot'));
      const dates = data.body.queries[0]!.series[0]!.points.map((p) => p.date);
      await bars.hover({
        position: { x: plot.x + plot.w * ((dates.length - 0.5) / dates.length), y: plot.y + plot.h - 4 },
      });
      const tip = page.locator(
        '.widget[aria-label="Monthly cost by provider"] .chart > div:not(:first-child)',
      );
      await tip.first().waitFor({ state: 'visible', timeout: 10_000 });
      // Lines as drawn (<br>): innerText, not textContent.
      // biome-ignore lint/performance/useDomNodeTextContent: the tooltip's lines are <br>-separated
      const text = (await tip.first().innerText()).split('\n').map((l) => l.trim());
      const last = dates.at(-1)!;
      const month = new Date(`${last}T00:00:00Z`).toLocaleString('en-US', {
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      });
      expect(text[0]).toBe(month);
      const expected = data.body.queries[0]!.series.filter((x) => x.points.at(-1)?.value !== null).map(
        (x) => `${Object.values(x.group)[0]}: ${consoleMoney(x.points.at(-1)!.value!)}`,
      );
      expect(text.slice(1).sort()).toEqual(expected.sort());
      expect(text.join(' ')).not.toMatch(/\d\.\d{3,}/);

      // The half-width table scrolls sideways inside its card, its Total column stays in view.
      const card = await page.locator('.widget[aria-label="Services by month"]').boundingBox();
      const total = await page
        .locator('.widget[aria-label="Services by month"] thead th')
        .last()
        .boundingBox();
      expect(
        await page.locator('.widget[aria-label="Services by month"] thead th').last().textContent(),
      ).toBe('Total');
      expect(total!.x + total!.width).toBeLessThanOrEqual(card!.x + card!.width + 1);
      expect(total!.x).toBeGreaterThanOrEqual(card!.x);

      expect(await legendsOverPlots(page)).toEqual([]);
      await closeCheckedPage(page, errors, ui.shot(`dashboard-${size.name}.png`));
    }
  }, 240_000);

  it('offers metrics and steps in words in the explorer, its legend under the bars', async () => {
    for (const size of SIZES) {
      const { page, errors } = await open(size);
      await page.click('a[href="#/explorer"]');
      await page.waitForSelector('#group-by-0 option[value="service"]', {
        state: 'attached',
        timeout: 30_000,
      });
      const metric = page.locator('form.explorer label:has-text("Metric") select');
      expect(await metric.locator('option[value="net_amortized_cost"]').textContent()).toBe(
        'Net amortized cost',
      );
      await page.selectOption('#group-by-0', 'service');
      await page.click('form.explorer button[type=submit]');
      await page.waitForSelector('.result .chart[data-plot]', { timeout: 60_000 });
      expect(await page.locator('.result .chart').getAttribute('data-legend')).toBeTruthy();
      expect(await legendsOverPlots(page)).toEqual([]);
      await closeCheckedPage(page, errors, ui.shot(`explorer-${size.name}.png`));
    }
  }, 240_000);

  it("states a condition alert's rule in words, with the query's alias", async () => {
    const { page, errors } = await open(SIZES[1]!);
    await page.goto(`${s().baseUrl}/console/#/alerts/${alertId}`);
    await page.waitForSelector('.summary dd');
    const rule = await page.locator('.summary dt:text("Rule") + dd').textContent();
    expect(rule).toBe('Condition: S3 cost is above the 28-day median of S3 cost × 1.5');
    expect(await page.locator('main').textContent()).not.toContain('rollingMedian(');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("shows a budget's month: budget, actual, forecast with its 80% range and delta per line, and the total", async () => {
    type F = {
      budget: number;
      actual: number;
      forecast: { value: number; lower80: number; upper80: number } | null;
      delta: number | null;
    };
    const status = await api<{ lines: (F & { value: string | null; owner: string | null })[]; total: F }>(
      'GET',
      `/budgets/${budgetId}/status`,
      { token: jwt },
    );
    expect(status.status).toBe(200);
    const signed = (x: number | null) =>
      x === null ? '–' : `${x > 0 ? '+' : x < 0 ? '−' : ''}${consoleMoney(Math.abs(x))}`;
    const cells = (f: F, line: string, owner: string) => [
      line,
      owner,
      consoleMoney(f.budget),
      consoleMoney(f.actual),
      f.forecast
        ? `${consoleMoney(f.forecast.value)}80%: ${consoleMoney(f.forecast.lower80)} – ${consoleMoney(f.forecast.upper80)}`
        : '–',
      signed(f.delta),
    ];
    const { page, errors } = await open(SIZES[1]!);
    await page.click('nav a[href="#/budgets"]');
    await page.click(`a[href="#/budgets/${budgetId}"]`);
    await page.waitForSelector('table.budget-status tfoot td', { timeout: 60_000 });
    const rows = await page
      .locator('table.budget-status tr')
      .evaluateAll((trs) =>
        trs.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
    expect(rows).toEqual([
      ...status.body.lines.map((l) => cells(l, l.value ?? 'All costs', l.owner ?? '')),
      cells(status.body.total, 'Total', ''),
    ]);
    await page.screenshot({ path: ui.shot('budget-1440.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('pages the dashboards list, searches it by name and loads it again from the nav link', async () => {
    const run = Date.now().toString(36);
    const key = await freshOrg(`org_console_pages_${run}`, `user_console_pages_${run}`, 'Pages');
    for (let i = 1; i <= 52; i++) {
      const r = await api('POST', '/dashboard-v2', {
        token: key,
        body: { name: `Board ${String(i).padStart(2, '0')}`, type: 'PUBLIC', widgets: [] },
      });
      expect(r.status).toBe(201);
    }
    const { page, errors } = await open(SIZES[0]!, key);
    await page.waitForSelector('.dash-list li');
    expect(await page.locator('.dash-list li').count()).toBe(50);
    await page.click('button:text("Show more dashboards")');
    await page.waitForFunction(() => document.querySelectorAll('.dash-list li').length === 52);
    expect(await page.locator('button:text("Show more dashboards")').count()).toBe(0);
    await page.fill('input[type=search]', 'board 51');
    expect(await page.locator('.dash-list li a').allTextContents()).toEqual(['Board 51']);
    await page.fill('input[type=search]', '');
    // A dashboard made elsewhere shows once "Dashboards" is clicked on the list itself.
    expect(
      (
        await api('POST', '/dashboard-v2', {
          token: key,
          body: { name: 'Made meanwhile', type: 'PUBLIC', widgets: [] },
        })
      ).status,
    ).toBe(201);
    await page.click('nav a[href="#/dashboards"]');
    await page.waitForSelector('.dash-list a:text("Made meanwhile")', { timeout: 30_000 });
    await closeCheckedPage(page, errors, ui.shot('dashboards-list-390.png'));
  }, 240_000);
});

describe('every page at 390 and 1440 px (issue 29 §5)', () => {
  const routes = () => [
    ['dashboards', '#/dashboards', '.dash-list li'],
    ['dashboard', `#/dashboards/${dashboardId}`, '.widget'],
    ['explorer', '#/explorer', 'form.explorer'],
    ['dimensions', '#/dimensions', 'table.candidates, p.empty'],
    ['alerts', '#/alerts', '.alert-list li'],
    ['alert', `#/alerts/${alertId}`, '.summary'],
    ['reports', '#/reports', '.report-list li, p.empty'],
    ['budgets', '#/budgets', '.budget-list li'],
    ['budget', `#/budgets/${budgetId}`, 'table.budget-status tfoot td'],
    // The organisation may hold no commitment (their figures: test/browser/commitments-page.test.ts).
    ['commitments', '#/commitments', '.inventory-card :is(table.inventory, p.empty, p.error)'],
    ['commitment-alerts', '#/commitments/alerts', '.commitment-alert-list li, p.empty'],
    ['data', '#/data', 'table.uploads tbody tr, p.empty'],
    ...(uploadId ? [['upload', `#/data/${uploadId}`, '.conformance h2']] : []),
  ];

  it.each(SIZES)(
    'has no sideways scroll and no legend over a plot at $name px',
    async (size) => {
      const { page, errors } = await open(size);
      const found: string[] = [];
      for (const [name, hash, ready] of routes()) {
        await page.goto(`${s().baseUrl}/console/${hash}`);
        await page.waitForSelector(ready!, { timeout: 60_000 });
        if (name === 'dashboard') await allDrawn(page);
        if (name === 'explorer') {
          await page.click('form.explorer button[type=submit]');
          await page.waitForSelector('.result .chart[data-plot], .result table, p.empty', {
            timeout: 60_000,
          });
        }
        const over = await overflow(page);
        if (over > 0) found.push(`${name}: ${over} px wider than the window`);
        for (const o of await legendsOverPlots(page)) found.push(`${name}: ${o}`);
        await page.screenshot({ path: ui.shot(`${name}-${size.name}.png`), fullPage: true });
      }
      expect(found).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
    300_000,
  );
});
