import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { mintToken } from '../../infra/local/idp';
import { DATE_PRESETS } from '../../shared/enums';
import { FOCUS_SAMPLE, num, sampleVariant, sumBy, tagsOf } from '../integration/warehouse/support';
import { costAlertHistory, sendEvaluationMessage } from '../support/alert-messages';
import { suiteBrowser } from '../support/browser';
import { ingestCli, tokenCli } from '../support/cli';
import { consoleMoney, costQuery, explorerWidget } from '../support/explorer';
import { api, session } from '../support/session';
import { thresholdBody } from '../unit/alerts/fixtures';

/**
 * The web console in a real headless browser (found, or installed, by test/support/browser.ts;
 * driven by playwright-core) on the local stack: sign in, open a dashboard and compare a rendered
 * table cell with the API's figure, build and save a query in the explorer, and meet an expired
 * credential. Works in the second
 * organisation (`org_acme`, whose data no other suite changes). Screenshots go to
 * test/artifacts/console/.
 */
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'console');
const s = () => session();
const key = () => s().apiKeys.outsider;

interface Answer {
  queries: {
    currency: string | null;
    series: { group: Record<string, string | null>; total: number | null }[];
  }[];
}

const browser = suiteBrowser(ARTIFACTS);
let dashboardId = '';
let dashboardName = '';

beforeAll(async () => {
  dashboardName = `Console e2e ${Date.now()}`;
  const created = await api<{ id: string }>('POST', '/dashboard-v2', {
    token: key(),
    body: {
      name: dashboardName,
      type: 'PUBLIC',
      widgets: [
        explorerWidget('w1', 'Cost by provider', {
          period: { datePreset: 'LAST_12_MONTHS', aggBy: 'Period' },
          queries: [costQuery('a', { chartType: 'TABLE', groupBy: 'provider' })],
          displayOptions: { precision: 2 },
        }),
        explorerWidget(
          'w2',
          'Monthly cost',
          {
            period: { datePreset: 'LAST_12_MONTHS', aggBy: 'Month' },
            queries: [costQuery('a', { chartType: 'BAR', groupBy: 'provider' })],
          },
          { x: 6 },
        ),
      ],
    },
  });
  expect(created.status).toBe(201);
  dashboardId = created.body.id;
  // Ten minutes when Debian's chromium has to be installed first (test/support/browser.ts).
}, 600_000);

/** A DAILY threshold alert in USD that e-mails one made-up address. */
const alertBody = (name: string, extra: Parameters<typeof thresholdBody>[0] = {}) =>
  thresholdBody({
    name,
    currency: 'USD',
    notificationChannel: 'EMAIL',
    slackChannelId: null,
    emails: [`${name.replace(/\W+/g, '-').toLowerCase()}@example.com`],
    ...extra,
  });

const PHONE = { width: 390, height: 844 };

async function newPage(
  viewport = { width: 1280, height: 900 },
): Promise<{ page: Page; hosts: Set<string>; errors: string[] }> {
  const page = await browser().newPage({ viewport });
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

/** The focused element as a keyboard user meets it, or null when focus is on the document itself. */
interface Focused {
  tag: string;
  id: string;
  name: string;
  href: string | null;
  /** Native control, or a role and a tab stop of its own. */
  control: boolean;
  /** `:focus-visible` matches and draws an outline or a box shadow, on screen. */
  ringed: boolean;
}

async function focused(page: Page): Promise<Focused | null> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body || el === document.documentElement) return null;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const drawn =
      (cs.outlineStyle !== 'none' && Number.parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
    const native = ['a', 'button', 'input', 'select', 'textarea', 'summary'].includes(
      el.tagName.toLowerCase(),
    );
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id,
      name: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim(),
      href: el.getAttribute('href'),
      control: native || (el.hasAttribute('role') && el.tabIndex >= 0),
      ringed: el.matches(':focus-visible') && drawn && r.width > 0 && r.height > 0 && r.bottom > 0,
    };
  });
}

/**
 * Presses `key` until `want` holds for the focused element (at most `max` presses: focus is never
 * trapped short of it). Every element reached on the way is a real control with a visible ring.
 */
async function tabTo(
  page: Page,
  want: (f: Focused) => boolean,
  { key = 'Tab', max = 150 }: { key?: string; max?: number } = {},
): Promise<Focused[]> {
  const seen: Focused[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const f = await focused(page);
    if (!f) continue; // focus left the document at its end; the next press comes back at the start
    seen.push(f);
    expect({ ...f, ringed: f.ringed, control: f.control }).toEqual({ ...f, ringed: true, control: true });
    if (want(f)) return seen;
  }
  throw new Error(`${key} × ${max} never reached it; met ${seen.map((f) => f.name).join(' | ')}`);
}

/** No clickable look-alikes: whatever shows a pointer is a real control; every button and link is named. */
async function fakeControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bad: string[] = [];
    const real = 'a[href], button, input, select, textarea, summary, label, [role][tabindex]';
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      if (el.matches('canvas') || el.closest(real)) continue;
      if (getComputedStyle(el).cursor === 'pointer') bad.push(`${el.tagName}.${el.className}`);
    }
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('a, button'))) {
      if (el.tagName === 'A' && !el.hasAttribute('href')) bad.push(`a without href: ${el.textContent}`);
      if (!(el.getAttribute('aria-label') ?? el.textContent ?? '').trim())
        bad.push(`unnamed ${el.outerHTML}`);
    }
    return bad;
  });
}

/** Waits for the page heading to hold focus (a route change moves it there). */
async function headingFocused(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (t) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === t,
    text,
    { timeout: 60_000 },
  );
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

  it('offers the merge of the spellings of a tag key and publishes one label with every spelling (1280 and 390 px)', async () => {
    // An organisation of its own whose export writes one key two ways, " team" and "Team".
    const org = `org_console_keys_${Date.now().toString(36)}`;
    const token = tokenCli('user_console_keys', org, 'admin');
    expect((await api('GET', '/dimensions', { token })).status).toBe(200);
    let i = 0;
    const file = sampleVariant(s().stateDir, `${org}.csv`, FOCUS_SAMPLE, (text) =>
      text.replaceAll('"{""application""', () =>
        i++ % 3 ? '"{"" team"": ""ops"", ""application""' : '"{""Team"": ""Ops"", ""application""',
      ),
    );
    const ingested = ingestCli(org, file.path);
    expect(ingested.stderr).toBe('');
    expect(ingested.status).toBe(0);
    const cost = (key: string) =>
      file.rows.filter((r) => tagsOf(r)[key] !== undefined).reduce((a, r) => a + num(r.BilledCost), 0);
    // The costliest spelling first, without its outer spaces, names the label.
    const keys = [' team', 'Team'].sort((a, b) => cost(b) - cost(a));
    const name = (keys[0] as string).trim();

    const shots: [string, { width: number; height: number }][] = [
      ['dimensions-merge-1280.png', { width: 1280, height: 900 }],
      ['dimensions-merge-390.png', PHONE],
    ];
    for (const [shot, viewport] of shots) {
      const { page, errors } = await newPage(viewport);
      await signIn(page, token);
      await page.click('a[href="#/dimensions"]');
      await page.waitForSelector('table.candidates', { timeout: 30_000 });
      const cells = await page.locator('table.candidates tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          key: tr.querySelector('td:first-child')?.textContent ?? '',
          button: tr.querySelector('button.merge')?.textContent ?? null,
          also: [...tr.querySelectorAll('td.publish code.tagkey')].map((c) => c.textContent),
        })),
      );
      // Each spelling is a row of its own, and offers the merge with the other one.
      for (const key of keys) {
        const row = cells.find((c) => c.key === key);
        expect(row?.also).toEqual(keys.filter((k) => k !== key));
        expect(row?.button).toBe(`Merge 2 spellings as label ${name}`);
      }
      await page.screenshot({ path: join(ARTIFACTS, shot), fullPage: true });
      // The page does not scroll sideways; at 1280 px the table fits, merge buttons in view.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewport.width,
      );
      if (viewport !== PHONE) {
        const fits = await page.evaluate(() => {
          const wrap = document.querySelector('.table-wrap')?.getBoundingClientRect();
          const table = document.querySelector('table.candidates')?.getBoundingClientRect();
          return wrap && table ? table.right <= wrap.right + 1 : false;
        });
        expect(fits).toBe(true);
      }
      if (viewport === PHONE) {
        const row = page.locator('table.candidates tbody tr', {
          has: page.locator('td:first-child code', { hasText: /^Team$/ }),
        });
        // The phone's view of the offer itself (the full page is long).
        await row.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(ARTIFACTS, 'dimensions-merge-390-row.png') });
        await row.locator('button.merge').click();
        await page.waitForSelector('p.ok[role=status]', { timeout: 30_000 });
        expect(await page.locator('p.ok[role=status]').textContent()).toContain(
          `Published the label ${name} from the keys ${keys.map((k) => JSON.stringify(k)).join(', ')}`,
        );
      }
      expect(errors).toEqual([]);
      await page.close();
    }

    // The API holds one label with both spellings as sources; its values are the rows' sums.
    expect((await api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } })).status).toBe(200);
    const dims = await api<{ name: string; values: { name: string; proportionCostAllocated: number }[] }[]>(
      'GET',
      '/dimensions',
      { token },
    );
    const label = dims.body.find((d) => d.name === name);
    const total = file.rows.reduce((a, r) => a + num(r.BilledCost), 0);
    const byValue = sumBy(
      file.rows,
      (r) => keys.map((k) => tagsOf(r)[k]).find((v) => v !== undefined),
      (r) => num(r.BilledCost),
    );
    expect(label?.values.map((v) => v.name).sort()).toEqual([...byValue.keys()].sort());
    for (const v of label?.values ?? [])
      expect(v.proportionCostAllocated).toBeCloseTo((byValue.get(v.name) ?? Number.NaN) / total, 9);
    const cands = await api<{ key: string; ingested: boolean }[]>('GET', '/dimensions/candidates', { token });
    expect(
      cands.body
        .filter((c) => c.ingested)
        .map((c) => c.key)
        .sort(),
    ).toEqual([...keys].sort());
  }, 240_000);

  it('shows an alert: its series and threshold with the API figures, its history; snooze changes the record', async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const token = key();
    const made = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
      token,
      body: alertBody(`Console alert ${run}`),
    });
    expect(made.status).toBe(201);
    const id = made.body.id;
    type Data = {
      snoozedUntil: string | null;
      series: {
        dataThrough: string;
        dates: string[];
        queries: { name: string; values: (number | null)[] }[];
      } | null;
    };
    const first = await api<Data>('GET', `/alerts-v2/costAlerts/${id}/widgetData`, { token });
    expect(first.status).toBe(200);
    expect(first.body.series).not.toBeNull();
    // A threshold just under the last complete day's spend: the line is on the chart and the
    // evaluation of that day fires and notifies.
    const lastSpend = first.body.series!.queries[0]!.values.at(-1) ?? 0;
    expect(lastSpend).toBeGreaterThan(0);
    const threshold = Math.round(lastSpend * 0.9 * 100) / 100;
    const updated = await api('PUT', `/alerts-v2/costAlerts/${id}`, {
      token,
      body: alertBody(`Console alert ${run}`, {
        thresholds: [
          {
            value: threshold,
            severityLevel: 'WARNING',
            metricMode: 'ABSOLUTE_SPEND',
            changeBasis: 'ABSOLUTE_DELTA',
          },
        ],
      }),
    });
    expect(updated.status).toBe(200);
    // One evaluation of this alert only (a sweep would evaluate the other suites' alerts of the org).
    await sendEvaluationMessage({
      orgId: s().otherOrgId,
      alertId: id,
      scheduledFor: new Date().toISOString(),
    });
    const drained = await api<{ drained: boolean }>('POST', '/_local/drain', {
      body: { timeoutMs: 120_000 },
    });
    expect(drained.body.drained).toBe(true);
    const history = await costAlertHistory(id, token);
    expect(history.body.items).toHaveLength(1);
    const data = await api<Data>('GET', `/alerts-v2/costAlerts/${id}/widgetData`, { token });
    const series = data.body.series!;

    const { page, hosts, errors } = await newPage();
    await signIn(page, token);
    await page.click('a[href="#/alerts"]');
    await page.click(`a[href="#/alerts/${id}"]`);
    await page.waitForSelector('.card canvas', { timeout: 60_000 });
    await page.waitForSelector('table.history tbody tr', { timeout: 30_000 });
    // The newest day of the series, in the alert's currency, as the page's table of days shows it.
    const last = series.dates.length - 1;
    const dayRow = page.locator('table.alert-days tbody tr').first();
    expect(await dayRow.locator('td').first().textContent()).toBe(series.dataThrough);
    expect(await dayRow.locator('td').nth(1).textContent()).toBe(
      consoleMoney(series.queries[0]!.values[last] ?? 0),
    );
    // The rule states the threshold in the alert's currency.
    expect(await page.locator('.summary').textContent()).toContain(
      `Daily spend above ${consoleMoney(threshold)}`,
    );
    // The history row: billing day, the evaluation's figure, the outcome.
    const h = history.body.items[0]!;
    const hRow = page.locator('table.history tbody tr').first();
    expect(await hRow.locator('td').first().textContent()).toBe(h.evaluatedDay);
    expect(await hRow.locator('td').nth(2).textContent()).toBe(`spend ${consoleMoney(h.values.spend!)}`);
    expect(h.notificationId).toBe(`${id}:${h.evaluatedDay}`);
    expect(await hRow.locator('td').nth(3).textContent()).toBe('Notified');
    expect(await hRow.locator('td[data-label="Notification"]').textContent()).toBe(h.notificationId);
    await page.screenshot({ path: join(ARTIFACTS, 'alert.png'), fullPage: true });

    // Snooze for 7 days: the record's snoozedUntil is set about a week ahead; unsnooze clears it.
    const before = Date.now();
    await page.selectOption('.actions select', '7');
    await page.click('.actions button:text("Snooze")');
    await page.waitForSelector('.alert-status:text-matches("Snoozed until")', { timeout: 30_000 });
    const snoozed = await api<Data>('GET', `/alerts-v2/costAlerts/${id}/widgetData`, { token });
    const until = Date.parse(snoozed.body.snoozedUntil!);
    expect(until - before).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    await page.click('.actions button:text("Unsnooze")');
    await page.waitForSelector('.alert-status:text("Active")', { timeout: 30_000 });
    const cleared = await api<Data>('GET', `/alerts-v2/costAlerts/${id}/widgetData`, { token });
    expect(cleared.body.snoozedUntil).toBeNull();
    expect([...hosts]).toEqual([new URL(s().baseUrl).host]);
    expect(errors).toEqual([]);
    await page.close();

    const phone = await newPage(PHONE);
    await signIn(phone.page, token);
    await phone.page.goto(`${s().baseUrl}/console/#/alerts/${id}`);
    await phone.page.waitForSelector('table.history tbody tr', { timeout: 60_000 });
    await phone.page.waitForSelector('.card canvas', { timeout: 60_000 });
    await phone.page.screenshot({ path: join(ARTIFACTS, 'alert-phone.png'), fullPage: true });
    await phone.page.goto(`${s().baseUrl}/console/#/alerts`);
    await phone.page.waitForSelector('.alert-list li', { timeout: 30_000 });
    await phone.page.screenshot({ path: join(ARTIFACTS, 'alerts-phone.png'), fullPage: true });
    await phone.page.setViewportSize({ width: 1280, height: 900 });
    await phone.page.screenshot({ path: join(ARTIFACTS, 'alerts.png'), fullPage: true });
    expect(phone.errors).toEqual([]);
    await phone.page.close();
  }, 240_000);

  it('shows a report: changes its schedule, sends it now and lists the delivery as the API records it', async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const token = key();
    const to = `console-report-${run}@example.com`;
    const made = await api<{ id: string; version: number }>('POST', '/reports', {
      token,
      body: {
        name: `Console report ${run}`,
        type: 'PRIVATE',
        scheduledPeriod: 'WEEKLY',
        scheduledWeekday: 1,
        widgets: [{ type: 'TEXT', contentMarkdown: 'Weekly **spend** note' }],
        destinations: [{ destinationType: 'EMAIL', destinationValues: [to] }],
      },
    });
    expect(made.status).toBe(201);
    const id = made.body.id;
    const { page, hosts, errors } = await newPage();
    await signIn(page, token);
    await page.click('a[href="#/reports"]');
    await page.click(`a[href="#/reports/${id}"]`);
    await page.waitForSelector('.report-schedule', { timeout: 30_000 });
    expect(await page.locator('.report-schedule').textContent()).toMatch(/^Every Monday at 08:00/);
    await page.waitForSelector('table.deliveries, .card p.empty', { timeout: 30_000 });

    // Schedule: daily. The record changes (one version more) and the page shows the API's next run.
    await page.selectOption('form.schedule select', 'DAILY');
    await page.click('form.schedule button[type=submit]');
    await page.waitForSelector('form.schedule .ok', { timeout: 30_000 });
    const after = await api<{ scheduledPeriod: string; version: number; nextRunAt: string }>(
      'GET',
      `/reports/${id}`,
      { token },
    );
    expect(after.body.scheduledPeriod).toBe('DAILY');
    expect(after.body.version).toBe(made.body.version + 1);
    await page.waitForSelector('.report-schedule:text-matches("^Every day")', { timeout: 30_000 });
    expect(await page.locator('.report-next').textContent()).toBe(
      `${after.body.nextRunAt.slice(0, 16).replace('T', ' ')} UTC`,
    );

    // Send now: queued, delivered by the worker, and the log (polled by the page) shows it SENT.
    await page.click('button:text("Send now")');
    await page.waitForSelector('.log-head ~ .ok', { timeout: 30_000 });
    const drained = await api<{ drained: boolean }>('POST', '/_local/drain', {
      body: { timeoutMs: 120_000 },
    });
    expect(drained.body.drained).toBe(true);
    await page.waitForSelector('table.deliveries .badge:text("SENT")', { timeout: 60_000 });
    const log = await api<{
      items: { destination: string; status: string; trigger: string; attempts: number }[];
    }>('GET', `/reports/${id}/deliveries`, { token });
    // Other suites tick the report sweep with clocks days ahead over the same organisation, so a
    // scheduled run of this report may be in the log too: the "Send now" one is checked.
    const manual = log.body.items.filter((d) => d.trigger === 'MANUAL');
    expect(manual).toHaveLength(1);
    expect(manual[0]).toMatchObject({ destination: to, status: 'SENT' });
    const rows = await page
      .locator('table.deliveries tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
    expect(rows.map((cells) => cells.slice(1, 5))).toContainEqual([
      'Send now',
      `E-mail ${to}`,
      'SENT',
      String(manual[0]!.attempts),
    ]);
    // The e-mail really went out (the SES emulator's store): one per delivery the log says was sent.
    const { emails } = (await (await fetch(s().mailUrl)).json()) as {
      emails: { destination: { to: string[] } }[];
    };
    expect(emails.filter((e) => e.destination.to.some((t) => t.includes(to)))).toHaveLength(
      log.body.items.filter((d) => d.status === 'SENT').length,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
    expect([...hosts]).toEqual([new URL(s().baseUrl).host]);
    expect(errors).toEqual([]);
    await page.click('a[href="#/reports"]');
    await page.waitForSelector('.report-list li', { timeout: 30_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'reports.png'), fullPage: true });
    await page.close();

    const phone = await newPage(PHONE);
    await signIn(phone.page, token);
    await phone.page.goto(`${s().baseUrl}/console/#/reports/${id}`);
    await phone.page.waitForSelector('table.deliveries', { timeout: 60_000 });
    await phone.page.screenshot({ path: join(ARTIFACTS, 'report-phone.png'), fullPage: true });
    expect(phone.errors).toEqual([]);
    await phone.page.close();
  }, 240_000);

  it('signs in with the identity provider (OIDC code flow, PKCE) as a demo user, the JWT kept in this tab only', async () => {
    const { page, hosts, errors } = await newPage();
    const visited: string[] = [];
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) visited.push(f.url());
    });
    await page.goto(`${s().baseUrl}/console/#/alerts`);
    await page.waitForSelector('button.idp', { timeout: 30_000 });
    expect(await page.locator('button.idp').textContent()).toBe('Sign in with the local identity provider');
    await page.screenshot({ path: join(ARTIFACTS, 'sign-in.png'), fullPage: true });
    await page.click('button.idp');
    // The identity provider's "sign in as" page, reached with state, nonce and an S256 challenge.
    await page.waitForSelector('button[data-user]', { timeout: 30_000 });
    const authorize = new URL(page.url());
    expect(authorize.pathname).toBe('/_local/idp/authorize');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const listed = await page
      .locator('button[data-user]')
      .evaluateAll((bs) => bs.map((b) => b.getAttribute('data-user')));
    expect(listed).toEqual([s().users.admin, s().users.member, s().users.outsider]);
    await page.screenshot({ path: join(ARTIFACTS, 'idp-sign-in-as.png'), fullPage: true });
    await page.click(`button[data-user="${s().users.outsider}"]`);
    // Back on the page where sign-in began, signed in.
    await page.waitForSelector('h1:text("Alerts")', { timeout: 30_000 });
    expect(visited.some((u) => u.includes('code='))).toBe(true);
    expect(page.url()).toBe(`${s().baseUrl}/console/#/alerts`);
    expect(page.url()).not.toContain('code=');
    // The credential: the ID token for that user and organisation, in session storage only.
    const jwt = (await page.evaluate(() => sessionStorage.getItem('finops.console.credential')))!;
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as {
      sub: string;
      org_id: string;
      nonce: string;
    };
    expect(claims).toMatchObject({ sub: s().users.outsider, org_id: s().otherOrgId });
    expect(claims.nonce).toBe(authorize.searchParams.get('nonce'));
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    // The pending sign-in (state, nonce, verifier) is gone once used.
    expect(await page.evaluate(() => sessionStorage.getItem('finops.console.oidc'))).toBeNull();
    // The history holds no code either: the callback's entry was replaced, so back is the IdP's
    // page and forward the console's clean address (still signed in: this tab's session).
    await page.goBack();
    expect(page.url()).toContain('/_local/idp/authorize?');
    await page.goForward();
    expect(page.url()).toBe(`${s().baseUrl}/console/#/alerts`);
    await page.waitForSelector('h1:text("Alerts")', { timeout: 30_000 });
    // The list is the one the API gives that user (the console test's dashboard of org_acme is there).
    await page.click('a[href="#/dashboards"]');
    await page.waitForSelector(`a[href="#/dashboards/${dashboardId}"]`, { timeout: 30_000 });
    const phone = await newPage(PHONE);
    await phone.page.goto(`${s().baseUrl}/console/`);
    await phone.page.waitForSelector('button.idp', { timeout: 30_000 });
    await phone.page.screenshot({ path: join(ARTIFACTS, 'sign-in-phone.png'), fullPage: true });
    await phone.page.close();
    expect([...hosts]).toEqual([new URL(s().baseUrl).host]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('refuses a forged return from the identity provider (state) and leaves no code in the URL', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${s().baseUrl}/console/?code=forged&state=forged#/dashboards`);
    await page.waitForSelector('.signin .error', { timeout: 30_000 });
    expect(await page.locator('.signin .error').textContent()).toContain('not started in this tab');
    expect(page.url()).toBe(`${s().baseUrl}/console/#/dashboards`);
    expect(await page.evaluate(() => sessionStorage.getItem('finops.console.credential'))).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('is keyboard reachable: sign in, nav, a dashboard and its period, an alert snoozed, focus always visible', async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const token = key();
    const name = `Keyboard alert ${run}`;
    const made = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
      token,
      body: alertBody(name),
    });
    expect(made.status).toBe(201);
    const id = made.body.id;
    const { page, errors } = await newPage();
    const press = (k: string) => page.keyboard.press(k);

    // Sign in without the mouse: Tab to the credential field, type, Enter.
    await page.goto(`${s().baseUrl}/console/`);
    await page.waitForSelector('#credential');
    await tabTo(page, (f) => f.id === 'credential');
    await page.keyboard.type(token);
    await press('Enter');
    await page.waitForSelector('.dash-list li', { timeout: 30_000 });
    expect(await fakeControls(page)).toEqual([]);

    // The first stop is "Skip to content", shown on focus; it lands in <main>.
    const skip = await tabTo(page, () => true, { max: 1 });
    expect(skip[0]!.name).toBe('Skip to content');
    await press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    // The next stop is in the page (the Type filter), not the header.
    expect((await tabTo(page, () => true, { max: 1 }))[0]!.tag).toBe('select');

    // Backwards to the header: every nav link, then forwards to this dashboard's link.
    const back = await tabTo(page, (f) => f.name === 'Skip to content', { key: 'Shift+Tab', max: 20 });
    expect(back.map((f) => f.name)).toEqual([
      'Sign out',
      'Data',
      'Commitments',
      'Budgets',
      'Reports',
      'Alerts',
      'Dimensions',
      'Explorer',
      'Dashboards',
      'Skip to content',
    ]);
    await tabTo(page, (f) => f.href === `#/dashboards/${dashboardId}`);
    await page.screenshot({ path: join(ARTIFACTS, 'keyboard-focus.png') });
    await press('Enter');
    await headingFocused(page, dashboardName);
    await page.waitForSelector('.widget table', { timeout: 60_000 });
    expect(await fakeControls(page)).toEqual([]);

    // The period: Tab to it, the arrow key picks the next preset, the widgets load it.
    await tabTo(page, (f) => f.tag === 'select', { max: 3 });
    const explored = page.waitForResponse(
      (r) => r.url().endsWith('/queries/explorer') && r.request().method() === 'POST',
      { timeout: 60_000 },
    );
    await press('ArrowDown');
    expect(await page.locator('.filters select').inputValue()).toBe(DATE_PRESETS[0]);
    expect((await explored).status()).toBe(200);
    // Every widget (two, or three once the explorer test has added one) drawn from the new period.
    await page.waitForFunction(
      () => [...document.querySelectorAll('.widget')].every((w) => w.getAttribute('data-state') === 'ok'),
      undefined,
      { timeout: 60_000 },
    );
    expect(await page.locator('.widget[data-state="ok"]').count()).toBeGreaterThanOrEqual(2);
    // "Versions" opens with Enter.
    await tabTo(page, (f) => f.name.startsWith('Versions'), { max: 2 });
    await press('Enter');
    await page.waitForSelector('ol.versions li', { timeout: 30_000 });

    // Back up to the nav's Alerts link, open the list and then the alert.
    await tabTo(page, (f) => f.name === 'Alerts', { key: 'Shift+Tab', max: 10 });
    await press('Enter');
    await headingFocused(page, 'Alerts');
    await page.waitForSelector('.alert-list li', { timeout: 30_000 });
    expect(await fakeControls(page)).toEqual([]);
    await tabTo(page, (f) => f.href === `#/alerts/${id}`, { max: 400 });
    await press('Enter');
    await headingFocused(page, name);
    expect(await fakeControls(page)).toEqual([]);

    // Snooze with the keyboard (Space on the button): the record changes; focus stays on the page.
    await tabTo(page, (f) => f.name === 'Snooze', { max: 6 });
    await press('Space');
    await page.waitForSelector('.alert-status:text-matches("Snoozed until")', { timeout: 30_000 });
    const snoozed = await api<{ snoozedUntil: string | null }>(
      'GET',
      `/alerts-v2/costAlerts/${id}/widgetData`,
      { token },
    );
    expect(Date.parse(snoozed.body.snoozedUntil!)).toBeGreaterThan(Date.now());
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Snoozed for 1 day.');
    await tabTo(page, (f) => f.name === 'Unsnooze', { key: 'Shift+Tab', max: 3 });
    await page.screenshot({ path: join(ARTIFACTS, 'keyboard-snooze.png') });

    // Never trapped: onwards from here, Tab runs off the end of the page and comes back to the top.
    await tabTo(page, (f) => f.name === 'Skip to content', { max: 60 });
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);

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
