import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csv, usage, valid } from '../integration/warehouse/focus-rows';
import { CONSOLE_SIZES, closeCheckedPage, sidewaysScroll } from '../support/browser';
import { ingestOk } from '../support/cli';
import { consoleSuite } from '../support/console-suite';
import { freshOrgForSuite } from '../support/fresh-org';
import { api } from '../support/session';

/**
 * The console's Data page (issue 31, console part) in headless Chromium on the local stack, for a
 * new organisation: the uploads list (file, format, status, rows, time, score) and an upload's
 * conformance report, for a FOCUS file written here with one row breaking one MUST (a Refund
 * with a consumed quantity left null): MUST and SHOULD met, the failing requirement with its one
 * violating row and that row's line in the file. Screenshots at 390 and 1440 px:
 * test/artifacts/console-pages/.
 */
const org = freshOrgForSuite('dpage', 'data page');
const orgId = org.id;

const ui = consoleSuite();
const rows = valid();

beforeAll(async () => {
  // The third data row (line 4, after the header) breaks ChargeCategory-C-003-M.
  rows[2] = { ...usage(3), ChargeCategory: 'Refund', ConsumedQuantity: null, ConsumedUnit: null };
  const file = join(mkdtempSync(join(tmpdir(), 'data-page-')), 'focus-refund.csv');
  writeFileSync(file, csv(rows));
  ingestOk(orgId, file);
}, 600_000);

it("lists the uploads and shows an upload's conformance report with the failing row", async () => {
  const list = await api<{
    items: {
      id: string;
      file: string;
      finishedAt: string;
      conformance: { score: Record<'MUST' | 'SHOULD', { met: number; applicable: number }> };
    }[];
  }>('GET', '/billing/uploads', { token: org.key });
  expect(list.body.items).toHaveLength(1);
  const u = list.body.items[0]!;
  // The stored object's name: the CLI prefixes the file's with the upload time.
  expect(u.file).toMatch(/focus-refund\.csv$/);
  const { MUST, SHOULD } = u.conformance.score;
  // One MUST broken by the one row changed here.
  expect(MUST.applicable - MUST.met).toBe(1);
  const score = `MUST ${MUST.met}/${MUST.applicable} · SHOULD ${SHOULD.met}/${SHOULD.applicable}`;
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(org.key, size);
    await page.click('nav a[href="#/data"]');
    await page.waitForSelector('table.uploads tbody tr', { timeout: 60_000 });
    expect(await page.locator('table.uploads tbody tr td').allTextContents()).toEqual([
      u.file,
      'FOCUS',
      'Ingested',
      String(rows.length),
      `${u.finishedAt.slice(0, 10)} ${u.finishedAt.slice(11, 16)} UTC`,
      score,
    ]);
    expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: ui.shot(`data-${size.name}.png`), fullPage: true });

    await page.click(`table.uploads a:text("${u.file}")`);
    await page.waitForSelector('.conformance .score', { timeout: 60_000 });
    expect(await page.locator('.conformance .score').textContent()).toContain(`${score} met`);
    const failing = page.locator('.conformance .failing li');
    expect(await failing.count()).toBe(1);
    expect(await failing.getAttribute('data-id')).toBe('ChargeCategory-C-003-M');
    expect(await failing.locator('.violations').textContent()).toBe('Violated by 1 row');
    // The sample: line 4 of the file, its ChargeCategory as written.
    const head = await failing.locator('table.samples th').allTextContents();
    const cells = await failing.locator('table.samples tbody td').allTextContents();
    expect(cells[0]).toBe('4');
    if (head.includes('ChargeCategory')) expect(cells[head.indexOf('ChargeCategory')]).toBe('Refund');
    await closeCheckedPage(page, errors, ui.shot(`upload-${size.name}.png`));
  }
}, 600_000);
