import { join } from 'node:path';
import { suiteBrowser } from '../support/browser';
import { session } from '../support/session';

/**
 * The console signs in through the local identity provider whether it is opened on `127.0.0.1` or
 * on `localhost` (its CSP lets it connect to its own origin only), and the provider's refusals are
 * pages. Screenshots go to test/artifacts/localhost/.
 */
const s = () => session();
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'localhost');
const browser = suiteBrowser(ARTIFACTS);

const port = () => new URL(s().baseUrl).port;

describe('the console on localhost and on 127.0.0.1', () => {
  for (const name of ['127.0.0.1', 'localhost']) {
    test(`signs in with the local identity provider on ${name}, every request same-origin`, async () => {
      const origin = `http://${name}:${port()}`;
      const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
      const hosts = new Set<string>();
      const problems: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith('data:')) hosts.add(new URL(r.url()).host);
      });
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      await page.goto(`${origin}/console/#/alerts`);
      await page.click('button.idp');
      await page.waitForSelector('button[data-user]', { timeout: 30_000 });
      expect(new URL(page.url()).origin).toBe(origin);
      await page.click(`button[data-user="${s().users.admin}"]`);
      await page.waitForSelector('h1:text("Alerts")', { timeout: 30_000 });
      // Signed in: the organisation's alerts (the demo's) are listed, read from this origin's API.
      await page.waitForSelector('a:text("Daily spend over limit")', { timeout: 30_000 });
      expect(page.url()).toBe(`${origin}/console/#/alerts`);
      expect([...hosts]).toEqual([`${name}:${port()}`]);
      expect(problems).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `signed-in-${name}.png`), fullPage: true });
      await page.close();
    }, 90_000);
  }

  test("the provider's refusal of a bad sign-in request is a page, at 1280 and 390 px", async () => {
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    const bad = new URL(`http://localhost:${port()}/_local/idp/authorize`);
    bad.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'cost-management-local',
      redirect_uri: 'http://localhost:1/console/',
      state: 'x',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    }).toString();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      const res = await page.goto(bad.toString());
      expect(res!.status()).toBe(400);
      expect(res!.headers()['content-type']).toBe('text/html; charset=utf-8');
      expect(await page.locator('h1').textContent()).toBe('This sign-in request was refused');
      expect(await page.locator('body').textContent()).toContain('redirect_uri: not registered');
      // The way back: the console's registered addresses.
      const links = await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(links).toEqual([`http://127.0.0.1:${port()}/console/`, `http://localhost:${port()}/console/`]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, `idp-error-${width}.png`), fullPage: true });
    }
    await page.close();
  });
});
