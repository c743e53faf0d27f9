import { readFileSync } from 'node:fs';
import { putBudgetAlertEvaluation } from '../../shared/db/budget-alerts-repo';
import type { RootCauses } from '../../shared/model/alerts';
import { CONSOLE_SIZES, sidewaysScroll } from '../support/browser';
import { consoleSuite } from '../support/console-suite';
import { freshOrgForSuite } from '../support/fresh-org';
import { api, session } from '../support/session';

/**
 * Managing budgets in the console (issue 28, console; issue 29, the reasons behind a firing), in
 * headless Chromium at 390 and 1440 px: a budget created from the list (one total line, a monthly
 * amount), its versions (an older one opened read-only), its grid exported as CSV (the download is
 * the API's export) and imported back with a changed cell (a new version) or a bad one (the API's
 * row and column shown, nothing saved), a budget alert snoozed and its snooze ended, and the top
 * contributors of the alert's last firing. Each change is checked against the stored record.
 * Screenshots: test/artifacts/console-pages/budget-manage-*.png.
 */
const s = () => session();
const org = freshOrgForSuite('bmanage', 'budget manage');
const { run, id: orgId } = org;

const ui = consoleSuite();

interface BudgetRecord {
  id: string;
  versionNumber: number;
  startMonth: string;
  lines: { value: string | null; owner: string | null; amounts: Record<string, number> }[];
}
const budgetOf = async (id: string) =>
  (await api<BudgetRecord>('GET', `/budgets/${id}`, { token: org.key })).body;
const exportOf = async (id: string) =>
  (
    await fetch(`${s().baseUrl}/budgets/${id}/export.csv`, {
      headers: { authorization: `Bearer ${org.key}` },
    })
  ).text();

/** The CSV with the cell of `month` in the first data row set to `text`. */
function withCell(csv: string, month: string, text: string): string {
  const rows = csv.split(/\r?\n/);
  const col = rows[0]!.split(',').indexOf(month);
  const cells = rows[1]!.split(',');
  cells[col] = text;
  rows[1] = cells.join(',');
  return rows.join('\r\n');
}

for (const size of CONSOLE_SIZES)
  it(`at ${size.name} px: creates a budget, reads its versions, exports and imports its CSV, snoozes its alert and shows why it fired`, async () => {
    const name = `Made ${size.name} ${run}`;
    const { page, errors } = await ui.open(org.key, size);
    await page.goto(`${s().baseUrl}/console/#/budgets`);
    await page.click('button.new-budget');
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('First month').fill('2026-01');
    await page.getByLabel('Months').selectOption('3');
    await page.getByLabel('Owner').fill('ops@example.com');
    // A total budget without an amount is refused in words before anything is sent.
    await page.click('button:text("Create budget")');
    await page.waitForSelector('.budget-new p.error:has-text("Monthly amount")');
    await page.getByLabel('Monthly amount (USD)').fill('1200');
    await page.screenshot({ path: ui.shot(`budget-new-${size.name}.png`), fullPage: true });
    await page.click('button:text("Create budget")');
    await page.waitForURL(/#\/budgets\/bud_[0-9a-z]+$/, { timeout: 30_000 });
    const id = decodeURIComponent(page.url().split('#/budgets/')[1]!);
    const made = await budgetOf(id);
    expect(made).toMatchObject({ versionNumber: 1, startMonth: '2026-01' });
    expect(made.lines).toEqual([
      {
        value: null,
        owner: 'ops@example.com',
        amounts: { '2026-01': 1200, '2026-02': 1200, '2026-03': 1200 },
      },
    ]);
    // The grid reads as money.
    await page.waitForSelector('.budget-amounts td.num:text-is("$1,200.00")');

    // Export: the file downloaded is the API's CSV.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('button:text("Export CSV")'),
    ]);
    const exported = readFileSync((await download.path())!, 'utf8');
    expect(exported).toBe(await exportOf(id));
    expect(exported.split('\r\n')[0]).toBe('value,owner,2026-01,2026-02,2026-03');

    // A bad cell: the API names its row and column; nothing is saved.
    await page.locator('.budget-versions textarea').fill(withCell(exported, '2026-02', 'abc'));
    await page.click('button:text("Import as version 2")');
    const refusal = await page.locator('.budget-versions p.error').textContent({ timeout: 30_000 });
    expect(refusal).toContain('row 2, column D (2026-02): "abc" is not a number');
    expect((await budgetOf(id)).versionNumber).toBe(1);

    // A good one: version 2, with the cell changed.
    await page.locator('.budget-versions textarea').fill(withCell(exported, '2026-02', '1500'));
    await page.click('button:text("Import as version 2")');
    await page.waitForSelector('.budget-versions p.ok:text("Imported as version 2.")');
    const imported = await budgetOf(id);
    expect(imported.versionNumber).toBe(2);
    expect(imported.lines[0]!.amounts).toEqual({ '2026-01': 1200, '2026-02': 1500, '2026-03': 1200 });
    await page.waitForSelector('.budget-amounts td.num:text-is("$1,500.00")');

    // The versions, newest first; version 1 opens read-only with its own amounts.
    await page.waitForSelector('.budget-versions li:has-text("Version 2") .meta:has-text("current")');
    expect(await page.locator('.budget-versions ul.versions li button').allTextContents()).toEqual([
      'Version 2',
      'Version 1',
    ]);
    await page.click('.budget-versions button:text("Version 1")');
    const old = page.locator('.budget-amounts', { has: page.locator('h2:text("Amounts of version 1")') });
    expect(await old.locator('td.num').allTextContents()).toEqual(['$1,200.00', '$1,200.00', '$1,200.00']);
    expect(await old.locator('button.edit-amounts').count()).toBe(0);

    // A budget alert with a recorded firing: its top contributors on the page.
    const alert = await api<{ id: string }>('POST', '/alerts-v2/budgetAlerts', {
      token: org.key,
      body: {
        name: `Watch ${size.name}`,
        budgetId: id,
        thresholds: [{ value: 80 }],
        notificationChannel: 'EMAIL',
        emails: ['ops@example.com'],
      },
    });
    expect(alert.status).toBe(201);
    const before = [50, 50];
    const after = [100, 60];
    const change = after[0]! + after[1]! - before[0]! - before[1]!;
    const rootCauses: RootCauses = {
      dimension: 'sub-account / region',
      query: 'Budget total',
      period: { start: '2026-02-01', end: '2026-02-20' },
      baseline: {
        start: '2026-01-01',
        end: '2026-01-20',
        label: 'the same days of 2026-01 (2026-01-01 to 2026-01-20)',
      },
      before: 100,
      after: 160,
      change,
      top: ['prod / us-east-1', 'dev / eu-west-1'].map((label, i) => ({
        label,
        before: before[i]!,
        after: after[i]!,
        change: after[i]! - before[i]!,
        changePercent: ((after[i]! - before[i]!) / before[i]!) * 100,
        share: ((after[i]! - before[i]!) / change) * 100,
      })),
      explained: 100,
    };
    await putBudgetAlertEvaluation(orgId, {
      alertId: alert.body.id,
      evaluatedAt: '2026-02-21T06:00:00.000Z',
      budgetVersionId: 'bver_x',
      month: '2026-02',
      dataThrough: '2026-02-20',
      checks: [],
      triggered: true,
      rootCauses,
    });
    await page.reload();
    const row = page.locator('ul.budget-alerts > li', { hasText: `Watch ${size.name}` });
    await row
      .locator('summary:has-text("Top contributors when it last fired (data through 2026-02-20)")')
      .click();
    const causes = await row.locator('.causes li').allTextContents();
    expect(causes).toHaveLength(2);
    expect(causes[0]).toContain('prod / us-east-1: $50.00 → $100 (+$50.00, +100.0%; 83.3% of the change)');
    expect(causes[1]).toContain('dev / eu-west-1: $50.00 → $60.00 (+$10.00, +20.0%; 16.7% of the change)');

    // Snooze for 7 days, then end it: the stored record each time.
    await row.getByLabel('Snooze for').selectOption('7');
    await row.locator('button:text-is("Snooze")').click();
    await row.locator('button:text("End snooze")').waitFor({ timeout: 30_000 });
    const snoozed = await api<{ snoozedUntil: string | null }>(
      'GET',
      `/alerts-v2/budgetAlerts/${alert.body.id}`,
      { token: org.key },
    );
    const days = (Date.parse(snoozed.body.snoozedUntil!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);
    await page.screenshot({ path: ui.shot(`budget-manage-${size.name}.png`), fullPage: true });
    await row.locator('button:text("End snooze")').click();
    await row.locator('button:text-is("Snooze")').waitFor({ timeout: 30_000 });
    expect(
      (
        await api<{ snoozedUntil: string | null }>('GET', `/alerts-v2/budgetAlerts/${alert.body.id}`, {
          token: org.key,
        })
      ).body.snoozedUntil,
    ).toBeNull();

    expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
