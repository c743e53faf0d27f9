import { startIngestion } from '../../shared/db/dimensions-repo';
import { putUploadPointer } from '../../shared/db/uploads-repo';
import { CONSOLE_SIZES, sidewaysScroll } from '../support/browser';
import { consoleSuite } from '../support/console-suite';
import { freshOrg } from '../support/fresh-org';

/**
 * The console's Data page past one page of uploads (100, newest first): "Show more uploads"
 * follows `nextCursor` until every upload is listed, in order, and then goes away. The 130 upload
 * records are written through the repository (as the ingest worker writes them), not ingested, to
 * keep the test fast. Screenshots at 390 and 1440 px: test/artifacts/console-pages/.
 */
const run = Date.now().toString(36);
const orgId = `org_upaging${run}`;
const UPLOADS = 130;

const ui = consoleSuite();
let key = '';
/** The files in the order the list shows them: newest first. */
const files = Array.from({ length: UPLOADS }, (_, i) => `paged-${String(UPLOADS - i).padStart(3, '0')}.csv`);

beforeAll(async () => {
  key = await freshOrg(orgId, `user_upaging${run}`, `uploads paging ${run}`);
  for (let i = 1; i <= UPLOADS; i++) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const file = `paged-${String(i).padStart(3, '0')}.csv`;
    const ref = { orgId, objectKey: `uploads/${orgId}/${file}`, version: 'v1' };
    const uploadId = `upl_${i.toString(16).padStart(26, '0')}`;
    await startIngestion({
      ...ref,
      status: 'succeeded',
      startedAt: at,
      finishedAt: at,
      uploadId,
      file,
      format: 'focus',
      rows: i,
      months: ['2025-12'],
    });
    await putUploadPointer(ref, uploadId, at);
  }
}, 600_000);

it('lists the first 100 uploads, then the rest on "Show more uploads", newest first', async () => {
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    await page.click('nav a[href="#/data"]');
    await page.waitForSelector('table.uploads tbody tr', { timeout: 60_000 });
    const shown = () => page.locator('table.uploads tbody td[data-label="File"]').allTextContents();
    expect(await shown()).toEqual(files.slice(0, 100));
    await page.locator('button.more').scrollIntoViewIfNeeded();
    await page.screenshot({ path: ui.shot(`data-more-${size.name}.png`) });
    await page.click('button.more:text("Show more uploads")');
    await page.waitForFunction(
      (n) => document.querySelectorAll('table.uploads tbody tr').length === n,
      UPLOADS,
      { timeout: 60_000 },
    );
    expect(await shown()).toEqual(files);
    // Every upload is listed: nothing more to show.
    expect(await page.locator('button.more').count()).toBe(0);
    expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: ui.shot(`data-paged-${size.name}.png`) });
    expect(errors).toEqual([]);
    await page.close();
  }
}, 600_000);
