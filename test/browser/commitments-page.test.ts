import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_RI_ARN, DEMO_SP_ARN } from '../../infra/local/demo-data/commitment-cur';
import { type CsvRow, num, parseCsv } from '../integration/warehouse/support';
import { CONSOLE_SIZES, closeCheckedPage } from '../support/browser';
import { ingestOk } from '../support/cli';
import {
  CUR2_HEADER,
  csvText,
  curCommitmentLines,
  curHourlyLines,
  RI_ARN,
  SP_ARN,
} from '../support/commitment-exports';
import { consoleSuite } from '../support/console-suite';
import { consoleMoney } from '../support/explorer';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';

/**
 * The console's Commitments page (issue 30, console part) in headless Chromium on the local stack,
 * for a new organisation holding a generated AWS CUR 2.0 (a Savings Plan, an RI, hourly on-demand
 * usage): the inventory's cost, used and unused cost per commitment summed here from the raw lines,
 * days left from the terms' ends, the utilisation over the period, and the simulator's answer with
 * its recommended level marked on the curve. Screenshots at 390 and 1440 px:
 * test/artifacts/console-pages/.
 */
const s = () => session();
const DAY_MS = 86_400_000;
const run = Date.now().toString(36);
const orgId = `org_cpage${run}`;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
const today = Date.parse(`${ymd(Date.now())}T00:00:00Z`);
const DAYS = [4, 3, 2].map((o) => ymd(today - o * DAY_MS));
const SP_END = `${ymd(today + 20 * DAY_MS)}T23:59:59Z`;
const RI_END = `${ymd(today + 75 * DAY_MS)}T23:59:59Z`;

const ui = consoleSuite();
let key = '';
let cur: CsvRow[] = [];

beforeAll(async () => {
  key = await freshOrg(orgId, `user_cpage${run}`, `commitments page ${run}`);
  const text = csvText(CUR2_HEADER, [
    ...curCommitmentLines(DAYS, SP_END, RI_END),
    // Eight days of hourly usage up to yesterday: every hour of a 7-day lookback has some.
    ...curHourlyLines(ymd(today - 8 * DAY_MS), 8 * 24, (h) => (h % 24 >= 8 && h % 24 < 20 ? 6 : 2), 0.72),
  ]);
  cur = parseCsv(text);
  const file = join(mkdtempSync(join(tmpdir(), 'commitments-page-')), 'cur2.csv');
  writeFileSync(file, text);
  ingestOk(orgId, file);
}, 600_000);

/** Each commitment's used and unused cost from the raw lines (docs/commitments.md "The figures"). */
function expected(): Map<string, { used: number; unused: number }> {
  const out = new Map<string, { used: number; unused: number }>();
  for (const r of cur) {
    const id = r.savings_plan_savings_plan_a_r_n ?? r.reservation_reservation_a_r_n;
    if (!id) continue;
    const e = out.get(id) ?? { used: 0, unused: 0 };
    const type = r.line_item_line_item_type;
    if (type === 'SavingsPlanCoveredUsage') e.used += num(r.savings_plan_savings_plan_effective_cost);
    if (type === 'DiscountedUsage') e.used += num(r.reservation_effective_cost);
    if (type === 'SavingsPlanRecurringFee')
      e.unused += num(r.savings_plan_total_commitment_to_date) - num(r.savings_plan_used_commitment);
    if (type === 'RIFee')
      e.unused +=
        num(r.reservation_unused_amortized_upfront_fee_for_billing_period) +
        num(r.reservation_unused_recurring_fee);
    out.set(id, e);
  }
  return out;
}

it('shows utilisation, the inventory with days left and unused cost, and the simulator’s recommendation', async () => {
  const want = expected();
  expect([...want.keys()].sort()).toEqual([RI_ARN, SP_ARN].sort());
  const used = [...want.values()].reduce((a, e) => a + e.used, 0);
  const unused = [...want.values()].reduce((a, e) => a + e.unused, 0);
  const sim = await api<{
    recommended: { hourlyCommitment: number; netSavings: number } | null;
    curve: unknown[];
  }>('POST', '/commitments/simulate', {
    token: key,
    body: { provider: 'AWS', lookbackDays: 7, term: '3yr', paymentOption: 'All Upfront' },
  });
  expect(sim.status).toBe(200);
  expect(sim.body.recommended).not.toBeNull();
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    await page.click('nav a[href="#/commitments"]');
    await page.waitForSelector('table.inventory tbody tr', { timeout: 60_000 });
    await page.waitForSelector('.commitments .chart', { timeout: 60_000 });
    for (const [id, e] of want) {
      const cells = await page.locator(`table.inventory tr[data-id="${id}"] td`).allTextContents();
      const end = id === SP_ARN ? SP_END : RI_END;
      const left = Math.round((Date.parse(`${end.slice(0, 10)}T00:00:00Z`) - today) / DAY_MS);
      expect(cells.slice(4)).toEqual([
        end.slice(0, 10),
        `${left} days`,
        consoleMoney(e.used + e.unused),
        consoleMoney(e.used),
        consoleMoney(e.unused),
        `${((e.used / (e.used + e.unused)) * 100).toFixed(1)}%`,
        expect.stringMatching(/^−?\$[\d,]+\.\d\d$|^\$/),
      ]);
    }
    expect(await page.locator('table.inventory caption').textContent()).toBe('Figures in USD');
    expect(await page.locator('.commitments p.total').textContent()).toContain(
      `utilisation ${((used / (used + unused)) * 100).toFixed(1)}%`,
    );
    // Week buckets: the charts drawn again.
    await page.selectOption('.commitments label:has-text("Step") select', 'WEEK');
    await page.waitForSelector('.commitments .chart', { timeout: 60_000 });

    await page.selectOption('.simulator label:has-text("Lookback") select', '7');
    await page.selectOption('.simulator label:has-text("Term") select', '3yr');
    await page.selectOption('.simulator label:has-text("Payment") select', 'All Upfront');
    await page.click('.simulator button[type=submit]');
    await page.waitForSelector('.simulator .recommendation', { timeout: 60_000 });
    const r = sim.body.recommended!;
    expect(await page.locator('.simulator .recommendation').textContent()).toContain(
      `Recommended: ${consoleMoney(r.hourlyCommitment)}/hour, net savings ${consoleMoney(r.netSavings)}`,
    );
    await page.waitForSelector('.simulator .chart', { timeout: 30_000 });
    await closeCheckedPage(page, errors, ui.shot(`commitments-${size.name}.png`));
  }
}, 600_000);

it("the demo organisation's page lists its generated Savings Plan and reserved instances, at 390 and 1440 px", async () => {
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(s().apiKeys.admin, size);
    await page.click('nav a[href="#/commitments"]');
    await page.waitForSelector(`table.inventory tr[data-id="${DEMO_SP_ARN}"]`, { timeout: 60_000 });
    await page.waitForSelector(`table.inventory tr[data-id="${DEMO_RI_ARN}"]`, { timeout: 60_000 });
    await page.waitForSelector('.commitments .chart', { timeout: 60_000 });
    await closeCheckedPage(page, errors, ui.shot(`commitments-demo-${size.name}.png`));
  }
}, 300_000);
