import { type CsvRow, num } from '../integration/warehouse/support';
import { CONSOLE_SIZES, closeCheckedPage } from '../support/browser';
import { consoleSuite } from '../support/console-suite';
import { ingestAwsFocus } from '../support/daily-focus';
import { consoleMoney } from '../support/explorer';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { monthStart, ymd } from '../support/suite';

/**
 * The budget alert's link round trip (issue 28, console part): a budget alert fires on the local
 * stack (sweep and evaluator), its e-mail's link is followed in headless Chromium, and the page it
 * opens is the budget's month with the line marked, the actual to date equal to the sum of the
 * raw rows written here, and the alert with its last firing. Screenshots at 390 and 1440 px:
 * test/artifacts/console-pages/.
 */
const s = () => session();
const run = Date.now().toString(36);
const orgId = `org_blink${run}`;
const to = `budget-link-${run}@example.com`;

const ui = consoleSuite();
let key = '';
let rows: CsvRow[] = [];
let budgetId = '';

beforeAll(async () => {
  key = await freshOrg(orgId, `user_blink${run}`, `budget link ${run}`);
  const today = Date.parse(`${ymd(Date.now())}T00:00:00Z`);
  const months = [1, 0].map((o) => monthStart(new Date(today), o).slice(0, 7));
  rows = ingestAwsFocus(
    orgId,
    { seed: 3131, months, resourcesPerProvider: 2, accountPrefix: `bl${run}` },
    'focus_budget_link.csv',
  );
}, 600_000);

it("follows a budget alert's link to the budget's month, its figures summed from the raw rows", async () => {
  // The month the evaluator looks at: that of the last complete day (docs/budgets.md).
  const probe = await api<{ id: string }>('POST', '/budgets', {
    token: key,
    body: {
      name: `probe ${run}`,
      startMonth: ymd(Date.now()).slice(0, 7),
      lines: [{ value: null, owner: null, amounts: { [ymd(Date.now()).slice(0, 7)]: 1 } }],
    },
  });
  expect(probe.status).toBe(201);
  const st = await api<{ month: string; dataThrough: string }>('GET', `/budgets/${probe.body.id}/status`, {
    token: key,
  });
  const through = st.body.dataThrough;
  const month = [through.slice(0, 7), st.body.month].sort()[0]!;
  const actual = rows
    .filter((r) => String(r.ChargePeriodStart).slice(0, 7) === month)
    .filter((r) => String(r.ChargePeriodStart).slice(0, 10) <= through)
    .reduce((a, r) => a + num(r.BilledCost), 0);

  const budget = await api<{ id: string }>('POST', '/budgets', {
    token: key,
    body: {
      name: `Linked ${run}`,
      startMonth: month,
      groupBy: 'provider',
      lines: [{ value: 'AWS', owner: 'ops@example.com', amounts: { [month]: Math.round(actual * 1.5) } }],
    },
  });
  expect(budget.status).toBe(201);
  budgetId = budget.body.id;
  const alert = await api<{ id: string }>('POST', '/alerts-v2/budgetAlerts', {
    token: key,
    body: {
      name: `Half of AWS ${run}`,
      budgetId,
      line: 'AWS',
      thresholds: [
        { value: 50, severityLevel: 'WARNING', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' },
      ],
      notificationChannel: 'EMAIL',
      emails: [to],
    },
  });
  expect(alert.status).toBe(201);

  const tick = await api('POST', '/_local/tick', {
    body: { schedule: 'alert-sweep', now: new Date().toISOString(), detail: { orgIds: [orgId] } },
  });
  expect(tick.status).toBe(200);
  const drained = await api<{ drained: boolean }>('POST', '/_local/drain', { body: { timeoutMs: 120_000 } });
  expect(drained.body.drained).toBe(true);
  let text = '';
  for (const deadline = Date.now() + 30_000; !text && Date.now() < deadline; ) {
    const { emails } = (await (await fetch(s().mailUrl)).json()) as {
      emails: { destination: { to: string[] }; body: { text?: string } }[];
    };
    text = emails.find((e) => e.destination.to.some((t) => t.includes(to)))?.body.text ?? '';
    if (!text) await new Promise((r) => setTimeout(r, 300));
  }
  const link = /Open the budget: (\S+)/.exec(text)?.[1];
  expect(link).toMatch(new RegExp(`/console/#/budgets/${budgetId}\\?month=${month}&line=AWS$`));

  const history = await api<{ items: { evaluatedAt: string }[] }>(
    'GET',
    `/alerts-v2/budgetAlerts/${alert.body.id}/history`,
    { token: key },
  );
  const firedAt = history.body.items[0]!.evaluatedAt;
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    // The message's link as sent, on the stack's own host.
    await page.goto(link!.replace(/^https?:\/\/[^/]+/, s().baseUrl));
    await page.waitForSelector('table.budget-status tr.marked td', { timeout: 60_000 });
    await page.waitForSelector('.budget-alerts > li', { timeout: 60_000 });
    const marked = await page.locator('table.budget-status tr.marked td').allTextContents();
    expect(marked.slice(0, 4)).toEqual([
      'AWS',
      'ops@example.com',
      consoleMoney(Math.round(actual * 1.5)),
      consoleMoney(actual),
    ]);
    const monthWords = new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', {
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
    expect(await page.locator('.budget-status').locator('..').locator('h2').textContent()).toContain(
      monthWords,
    );
    const item = await page.locator('.budget-alerts > li').textContent();
    expect(item).toContain(`Half of AWS ${run}`);
    expect(item).toContain('WARNING: actual ≥ 50% of budget');
    expect(item).toContain(
      `Last fired: ${firedAt.slice(0, 10)} ${firedAt.slice(11, 16)} UTC: AWS, actual ${consoleMoney(actual)} ≥ ${consoleMoney(
        Math.round(actual * 1.5) * 0.5,
      )}`,
    );
    await closeCheckedPage(page, errors, ui.shot(`budget-link-${size.name}.png`));
  }
}, 600_000);
