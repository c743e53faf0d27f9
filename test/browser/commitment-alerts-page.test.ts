import { CONSOLE_SIZES, sidewaysScroll } from '../support/browser';
import { consoleSuite } from '../support/console-suite';
import { freshOrg } from '../support/fresh-org';
import { api } from '../support/session';

/**
 * The expiring-commitment alerts page (issue 30, console part) and the header of an API-key session
 * (issue 29 §4), in headless Chromium on the local stack, for a new organisation: reached from the
 * Commitments page; a create refused by the API shows its 400; a created alert is listed with its
 * window, target, state and no announcement; snooze and archive change its state as the API records
 * it. Screenshots at 390 and 1440 px: test/artifacts/console-pages/.
 */
const run = Date.now().toString(36);
const orgId = `org_calerts${run}`;
const label = `commitment alerts ${run}`;

const ui = consoleSuite();
let key = '';

beforeAll(async () => {
  key = await freshOrg(orgId, `user_calerts${run}`, label);
}, 120_000);

interface Stored {
  id: string;
  name: string;
  withinDays: number;
  emails: string[] | null;
  version: number;
  archivedAt: string | null;
  snoozedUntil: string | null;
}
const stored = async (name: string) => {
  const r = await api<{ items: Stored[] }>('GET', '/alerts-v2/commitmentAlerts?includeArchived=true', {
    token: key,
  });
  return r.body.items.find((a) => a.name === name);
};

it('creates, lists, edits (a 409 in words), snoozes, ends the snooze and archives expiring-commitment alerts, at 390 and 1440 px', async () => {
  for (const size of CONSOLE_SIZES) {
    const { page, errors } = await ui.open(key, size);
    // An API-key session says so, for whom, in which organisation (freshOrg names all three `label`).
    await page.waitForFunction(
      (t) => document.querySelector('.top .identity')?.textContent === t,
      `Signed in with the API key ${label} for ${label} · ${label} · admin`,
      { timeout: 30_000 },
    );
    await page.click('nav a[href="#/commitments"]');
    await page.click('a[href="#/commitments/alerts"]');
    await page.waitForSelector('h1:text("Expiring-commitment alerts")');
    const name = `Ends soon ${size.name}`;
    // E-mail without an address: the API's 400, naming the field, shown as is.
    await page.fill('.commitment-alert-form input >> nth=0', name);
    await page.selectOption('.commitment-alert-form select >> nth=0', '60');
    await page.click('.commitment-alert-form button[type=submit]');
    const refused = await page
      .locator('.commitment-alert-form [role=alert]')
      .textContent({ timeout: 30_000 });
    expect(refused).toMatch(/^The API answered 400: .*emails/);
    expect(await stored(name)).toBeUndefined();

    await page.fill('.commitment-alert-form input >> nth=1', 'ops@example.com, fin@example.com');
    await page.click('.commitment-alert-form button[type=submit]');
    await page.waitForSelector(`.commitment-alert-form [role=status]:text("Created “${name}”.")`);
    const item = page.locator('.commitment-alert-list li', { hasText: name });
    await item.locator('.meta:text("none yet")').waitFor({ timeout: 30_000 });
    expect(await item.locator('.meta').textContent()).toBe(
      'Within 60 days · E-mail to ops@example.com, fin@example.com · last announcement none yet',
    );
    expect(await item.locator('.badge').textContent()).toBe('Active');
    expect(await sidewaysScroll(page)).toBe(0);
    await page.screenshot({
      path: ui.shot(`commitment-alerts-created-${size.name}.png`),
      fullPage: true,
    });

    // Edit: the window and the addresses, sent with If-Match its version.
    const v1 = (await stored(name))!;
    await item.locator('button:text-is("Edit")').click();
    const form = item.locator('.commitment-alert-form');
    expect(await form.locator('input >> nth=1').inputValue()).toBe('ops@example.com, fin@example.com');
    await form.locator('select >> nth=0').selectOption('90');
    await form.locator('input >> nth=1').fill('ops@example.com');
    await form.locator('button:text("Save changes")').click();
    await form.waitFor({ state: 'detached', timeout: 30_000 });
    const v2 = (await stored(name))!;
    expect(v2).toMatchObject({ withinDays: 90, emails: ['ops@example.com'], version: v1.version + 1 });
    await item.locator('.meta:text-matches("^Within 90 days · E-mail to ops@example.com ·")').waitFor();
    // Someone else saves first: the page's edit (of version 2) is refused in words, and Reload shows theirs.
    const theirs = await api('PUT', `/alerts-v2/commitmentAlerts/${v2.id}`, {
      token: key,
      headers: { 'if-match': `"${v2.version}"` },
      body: { name, withinDays: 30, notificationChannel: 'EMAIL', emails: ['fin@example.com'] },
    });
    expect(theirs.status).toBe(200);
    await item.locator('button:text-is("Edit")').click();
    await form.locator('input >> nth=1').fill('late@example.com');
    await form.locator('button:text("Save changes")').click();
    expect(await form.locator('[role=alert]').textContent({ timeout: 30_000 })).toBe(
      `Not saved: someone changed this alert after version ${v2.version} was read. Reload it and edit again. Reload`,
    );
    expect((await stored(name))?.emails).toEqual(['fin@example.com']);
    await page.screenshot({
      path: ui.shot(`commitment-alerts-conflict-${size.name}.png`),
      fullPage: true,
    });
    await form.locator('button:text("Reload")').click();
    await item
      .locator('.meta:text-matches("^Within 30 days · E-mail to fin@example.com ·")')
      .waitFor({ timeout: 30_000 });

    await item.locator('select').selectOption('30');
    await item.locator('button:text("Snooze")').click();
    await item.locator('.badge:text-matches("^Snoozed until ")').waitFor({ timeout: 30_000 });
    const snoozed = await stored(name);
    const until = Date.parse(snoozed?.snoozedUntil ?? '');
    expect(Math.abs(until - (Date.now() + 30 * 86_400_000))).toBeLessThan(10 * 60_000);
    expect(await item.locator('.badge').textContent()).toBe(
      `Snoozed until ${snoozed?.snoozedUntil?.slice(0, 16).replace('T', ' ')} UTC`,
    );
    // A snoozed alert offers to end the snooze (DELETE …/snooze): the record is active again.
    await item.locator('button:text("End snooze")').click();
    await item.locator('.badge:text("Active")').waitFor({ timeout: 30_000 });
    expect((await stored(name))?.snoozedUntil).toBeNull();
    expect(await item.locator('button:text("Snooze")').count()).toBe(1);

    await item.locator('button:text("Archive")').click();
    await item.waitFor({ state: 'detached', timeout: 30_000 });
    expect((await stored(name))?.archivedAt).toBeTruthy();
    await page.check('text=Show archived expiring-commitment alerts');
    await page
      .locator('.commitment-alert-list li', { hasText: name })
      .locator('.badge:text-matches("^Archived ")')
      .waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
    await page.close();
  }
}, 300_000);
