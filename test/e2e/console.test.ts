import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { mintToken } from '../../infra/local/idp';
import { api, session } from '../support/session';

/**
 * The web console in a real headless browser (Debian's `chromium`, driven by playwright-core) on the
 * local stack: sign in, open a dashboard and compare a rendered table cell with the API's figure,
 * build and save a query in the explorer, and meet an expired credential. Works in the second
 * organisation (`org_acme`, whose data no other suite changes). Screenshots go to
 * test/artifacts/console/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'console');
const s = () => session();
const key = () => s().apiKeys.outsider;

interface Answer {
  queries: {
    currency: string | null;
    series: { group: Record<string, string | null>; total: number | null }[];
  }[];
}

let browser: Browser;
let dashboardId = '';

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const created = await api<{ id: string }>('POST', '/dashboard-v2', {
    token: key(),
    body: {
      name: `Console e2e ${Date.now()}`,
      type: 'PUBLIC',
      widgets: [
        {
          key: 'w1',
          x: 0,
          y: 0,
          w: 6,
          h: 4,
          title: 'Cost by provider',
          source: {
            type: 'advancedExplorer',
            request: {
              period: { datePreset: 'LAST_12_MONTHS', aggBy: 'Period' },
              queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'TABLE', groupBy: 'provider' }],
              displayOptions: { precision: 2 },
            },
          },
        },
        {
          key: 'w2',
          x: 6,
          y: 0,
          w: 6,
          h: 4,
          title: 'Monthly cost',
          source: {
            type: 'advancedExplorer',
            request: {
              period: { datePreset: 'LAST_12_MONTHS', aggBy: 'Month' },
              queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'BAR', groupBy: 'provider' }],
            },
          },
        },
      ],
    },
  });
  expect(created.status).toBe(201);
  dashboardId = created.body.id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function newPage(): Promise<{ page: Page; hosts: Set<string>; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const hosts = new Set<string>();
  const errors: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('data:')) hosts.add(new URL(r.url()).host);
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, hosts, errors };
}

async function signIn(page: Page, credential: string): Promise<void> {
  await page.goto(`${s().baseUrl}/console/`);
  await page.fill('#credential', credential);
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:text("Dashboards")', { timeout: 30_000 });
}

describe('the web console in a browser', () => {
  it('signs in, opens a dashboard and shows the API figures in its table and chart', async () => {
    const { page, hosts, errors } = await newPage();
    await signIn(page, key());
    await page.click(`a[href="#/dashboards/${dashboardId}"]`);
    await page.waitForSelector('.widget table', { timeout: 60_000 });
    await page.waitForSelector('.widget canvas', { timeout: 60_000 });

    const data = await api<Answer>('GET', `/dashboard-v2/${dashboardId}/widgets/w1/data`, { token: key() });
    expect(data.status).toBe(200);
    const q = data.body.queries[0]!;
    const top = [...q.series].sort((a, b) => (b.total ?? 0) - (a.total ?? 0))[0]!;
    const name = String(Object.values(top.group)[0]);
    const expected = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: q.currency!,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    }).format(top.total!);
    const row = page.locator('.widget table tbody tr').first();
    expect(await row.locator('td').first().textContent()).toBe(name);
    expect(await row.locator('td').last().textContent()).toBe(expected);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    // Every request went to the API's own origin (it serves the console locally).
    expect([...hosts]).toEqual([new URL(s().baseUrl).host]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('builds a query in the explorer and saves it to the dashboard as a new version', async () => {
    const before = await api<{ publishedVersion: number; widgets: unknown[] }>(
      'GET',
      `/dashboard-v2/${dashboardId}`,
      { token: key() },
    );
    const { page, errors } = await newPage();
    await signIn(page, key());
    await page.click('a[href="#/explorer"]');
    await page.waitForSelector('#group-by-0 option[value="provider"]', {
      state: 'attached',
      timeout: 30_000,
    });
    await page.selectOption('form.explorer select >> nth=0', 'cost');
    await page.selectOption('#group-by-0', 'provider');
    await page.selectOption('form.explorer label:has-text("Period") select', 'LAST_12_MONTHS');
    await page.click('form.explorer button[type=submit]');
    await page.waitForSelector('.result table', { timeout: 60_000 });
    await page.fill('form.save label:has-text("Title") input', 'Saved from the explorer');
    await page.waitForSelector(`form.save option[value="${dashboardId}"]`, { state: 'attached' });
    await page.selectOption('form.save select', dashboardId);
    await page.click('form.save button[type=submit]');
    await page.waitForSelector('form.save .ok', { timeout: 30_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'explorer.png'), fullPage: true });
    const after = await api<{ publishedVersion: number; widgets: { title: string }[] }>(
      'GET',
      `/dashboard-v2/${dashboardId}`,
      { token: key() },
    );
    expect(after.body.publishedVersion).toBe(before.body.publishedVersion + 1);
    expect(after.body.widgets.map((w) => w.title)).toEqual([
      ...(before.body.widgets as { title: string }[]).map((w) => w.title),
      'Saved from the explorer',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('lists the label candidates with their cost share, as the API answers them', async () => {
    const cands = await api<{ key: string; total_cost_key_present: number; total_cost_key_absent: number }[]>(
      'GET',
      '/dimensions/candidates',
      { token: key() },
    );
    expect(cands.status).toBe(200);
    const { page, errors } = await newPage();
    await signIn(page, key());
    await page.click('a[href="#/dimensions"]');
    await page.waitForSelector('h2:text("Label candidates")');
    await page.waitForSelector('table.candidates, p.empty', { timeout: 30_000 });
    const keys = await page.locator('table.candidates tbody tr td:first-child').allTextContents();
    expect([...keys].sort()).toEqual(cands.body.map((c) => c.key).sort());
    if (cands.body.length) {
      const top = [...cands.body].sort(
        (a, b) => b.total_cost_key_present - a.total_cost_key_present || a.key.localeCompare(b.key),
      )[0]!;
      const share =
        (top.total_cost_key_present / (top.total_cost_key_present + top.total_cost_key_absent)) * 100;
      const first = page.locator('table.candidates tbody tr').first();
      expect(await first.locator('td').nth(1).textContent()).toContain(`${share.toFixed(1)}%`);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'dimensions.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('goes back to sign in when the credential has expired', async () => {
    const stored = JSON.parse(readFileSync(join(s().stateDir, 'idp-key.json'), 'utf8')) as Parameters<
      typeof mintToken
    >[0];
    const jwt = await mintToken(stored, {
      userId: s().users.outsider,
      orgId: s().otherOrgId,
      expiresInSeconds: -60,
    });
    const { page } = await newPage();
    await page.goto(`${s().baseUrl}/console/`);
    await page.evaluate((t) => sessionStorage.setItem('finops.console.credential', t), jwt);
    // A new load of the page (a hash change alone would keep the signed-out page already drawn).
    await page.reload();
    await page.waitForSelector('#credential', { timeout: 30_000 });
    expect(await page.locator('.notice').textContent()).toContain('sign in again');
    expect(await page.evaluate(() => sessionStorage.getItem('finops.console.credential'))).toBeNull();
    await page.screenshot({ path: join(ARTIFACTS, 'expired.png') });
    await page.close();
  }, 60_000);
});
