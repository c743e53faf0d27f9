import type { Page } from 'playwright-core';
import { CONSOLE_SIZES, closeCheckedPage, sidewaysScroll } from '../support/browser';
import { consoleSuite } from '../support/console-suite';
import { consoleMoney } from '../support/explorer';
import { freshOrgForSuite } from '../support/fresh-org';
import { api, session } from '../support/session';

/**
 * The budget page's editing (issue 28, console part), in headless Chromium at 390 and 1440 px: the
 * month picker (any month of the budget, `?month=` kept in the URL), the lines × months grid saved
 * as a new version with If-Match (and a 409 when someone saved first, said in words), and a budget
 * alert created, edited and archived on the page. Every figure checked is one written here.
 * Screenshots: test/artifacts/console-pages/budget-edit-*.png.
 */
const s = () => session();
const org = freshOrgForSuite('bedit', 'budget edit');
const { run } = org;
const monthWords = (m: string) =>
  new Date(`${m}-01T00:00:00Z`).toLocaleString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });

const ui = consoleSuite();

interface BudgetRecord {
  id: string;
  versionNumber: number;
  lines: { value: string | null; amounts: Record<string, number> }[];
}

const statusRow = (page: Page, line: string) =>
  page.locator('table.budget-status tbody tr', { has: page.locator(`td:text-is("${line}")`) });

for (const size of CONSOLE_SIZES)
  it(`at ${size.name} px: picks a month, saves amounts as a new version (409 in words), creates, edits and archives an alert`, async () => {
    const months = ['2026-01', '2026-02', '2026-03'];
    const created = await api<BudgetRecord>('POST', '/budgets', {
      token: org.key,
      body: {
        name: `Edited ${size.name} ${run}`,
        startMonth: months[0],
        groupBy: 'service',
        lines: [
          { value: 'Compute', owner: 'ops@example.com', amounts: { [months[0]!]: 100, [months[1]!]: 250.5 } },
          { value: 'Storage', owner: null, amounts: { [months[0]!]: 40, [months[2]!]: 60 } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const { page, errors } = await ui.open(org.key, size);
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${s().baseUrl}/console/#/budgets/${id}?month=${months[0]}`);
    await page.waitForSelector('table.budget-status tbody tr', { timeout: 60_000 });

    // The month picker: the budget's three months; choosing one puts it in the URL and the table.
    const picker = page.getByLabel('Month of the budget');
    expect(
      await picker.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
    ).toEqual(months);
    await picker.selectOption(months[1]!);
    await page.waitForURL(new RegExp(`#/budgets/${id}\\?month=${months[1]}$`));
    await page.waitForSelector(`.card.table-wrap h2:has-text("${monthWords(months[1]!)}")`);
    await statusRow(page, 'Compute').locator('td[data-label="Budget"]:has-text("$250.50")').waitFor();
    expect(await statusRow(page, 'Storage').locator('td[data-label="Budget"]').textContent()).toBe(
      consoleMoney(0),
    );

    // The grid: edit one cell and add a month, save as version 2.
    await page.click('button.edit-amounts');
    const cell = page.getByLabel(`Compute, ${monthWords(months[1]!)}`);
    await cell.fill('300');
    await page.click('text=Add a month');
    await page.getByLabel(`Storage, ${monthWords('2026-04')}`).fill('75.25');
    if (size.name === '390')
      await page.screenshot({ path: ui.shot(`budget-edit-grid-${size.name}.png`), fullPage: true });
    await page.click('text=Save as version 2');
    await page.waitForSelector('.month-picker .meta:has-text("Version 2")', { timeout: 30_000 });
    await statusRow(page, 'Compute').locator('td[data-label="Budget"]:has-text("$300.00")').waitFor();
    const saved = await api<BudgetRecord>('GET', `/budgets/${id}`, { token: org.key });
    expect(saved.body.versionNumber).toBe(2);
    expect(saved.body.lines.map((l) => l.amounts)).toEqual([
      { [months[0]!]: 100, [months[1]!]: 300 },
      { [months[0]!]: 40, [months[2]!]: 60, '2026-04': 75.25 },
    ]);

    // Someone else saves version 3 while the grid is open: the page's save is refused, in words.
    await page.click('button.edit-amounts');
    const other = await api('PUT', `/budgets/${id}`, {
      token: org.key,
      headers: { 'if-match': '"2"' },
      body: {
        name: `Edited ${size.name} ${run}`,
        startMonth: months[0],
        groupBy: 'service',
        lines: saved.body.lines.map((l) => ({ value: l.value, owner: null, amounts: l.amounts })),
      },
    });
    expect(other.status).toBe(200);
    await page.getByLabel(`Compute, ${monthWords(months[0]!)}`).fill('999');
    await page.click('text=Save as version 3');
    const refused = page.locator('.budget-amounts [role=alert]');
    await refused.waitFor();
    expect(await refused.textContent()).toContain(
      'Not saved: this budget changed since you opened it (you edited version 2; someone saved a newer one)',
    );
    expect(
      (await api<BudgetRecord>('GET', `/budgets/${id}`, { token: org.key })).body.lines[0]!.amounts[
        months[0]!
      ],
    ).toBe(100);
    await page.click('.budget-amounts >> text=Cancel');

    // An alert: created on each line, then edited to 90 %, then archived.
    await page.click('button.new-alert');
    await page.getByLabel('Name').fill(`Each line ${size.name} ${run}`);
    await page.getByLabel('Watches').selectOption('*');
    await page.getByLabel('Value').fill('80');
    await page.getByRole('textbox', { name: 'E-mails' }).fill('owner@example.com');
    await page.screenshot({ path: ui.shot(`budget-edit-alert-${size.name}.png`), fullPage: true });
    expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
    await page.click('text=Create the alert');
    const item = page.locator('.budget-alerts > li', { hasText: `Each line ${size.name} ${run}` });
    await item
      .locator('.thresholds:has-text("WARNING: actual ≥ 80% of budget")')
      .waitFor({ timeout: 30_000 });
    expect(await item.locator('.meta').textContent()).toContain('Watches Each line');
    const alerts = await api<{
      items: { id: string; line: string; emails: string[]; thresholds: { value: number }[] }[];
    }>('GET', `/alerts-v2/budgetAlerts?budgetId=${id}`, { token: org.key });
    expect(alerts.body.items.map((a) => [a.line, a.emails, a.thresholds.map((t) => t.value)])).toEqual([
      ['*', ['owner@example.com'], [80]],
    ]);
    await item.locator('text=Edit').click();
    await item.getByLabel('Value').fill('90');
    await item.locator('text=Save the alert').click();
    await item
      .locator('.thresholds:has-text("WARNING: actual ≥ 90% of budget")')
      .waitFor({ timeout: 30_000 });
    await item.locator('text=Archive').click();
    await page.waitForSelector('.budget-alerts-card p.empty', { timeout: 30_000 });
    const after = await api<{ archivedAt: string | null; thresholds: { value: number }[] }>(
      'GET',
      `/alerts-v2/budgetAlerts/${alerts.body.items[0]!.id}`,
      { token: org.key },
    );
    expect([after.body.thresholds.map((t) => t.value), after.body.archivedAt !== null]).toEqual([[90], true]);

    await closeCheckedPage(page, errors, ui.shot(`budget-edit-${size.name}.png`));
  }, 300_000);
