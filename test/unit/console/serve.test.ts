import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stop } from 'esbuild';
import { bundleConsole, writeConsoleSync } from '../../../console/bundle';
import { CONSOLE_PATH, consoleHook } from '../../../infra/local/console-hook';

/** The local runtime serves the console from the API's origin, with its config and security headers. */
describe('the console on the local server', () => {
  const env = process.env.APP_BASE_URL;
  beforeAll(() => {
    process.env.APP_BASE_URL = 'http://127.0.0.1:4321';
  });
  afterAll(async () => {
    process.env.APP_BASE_URL = env;
    // esbuild's service process would keep the worker alive.
    await stop();
  });
  const get = (path: string) => consoleHook.handle!('GET', path, undefined);

  it('answers config.json naming this server as the API', async () => {
    const r = await get(`${CONSOLE_PATH}config.json`);
    expect(r).toMatchObject({ status: 200, body: { apiBaseUrl: 'http://127.0.0.1:4321' } });
    expect(r!.headers!['cache-control']).toBe('no-store');
  });

  it('serves the page and its bundle, allowed to connect to its own origin only', async () => {
    const page = await get(CONSOLE_PATH);
    expect(page!.status).toBe(200);
    expect(page!.headers!['content-type']).toMatch(/^text\/html/);
    const html = Buffer.from(page!.body as Uint8Array).toString('utf8');
    expect(html).toContain('<script type="module" src="main.js">');
    expect(page!.headers!['content-security-policy']).toContain("connect-src 'self'");
    const js = await get(`${CONSOLE_PATH}main.js`);
    expect(js!.headers!['content-type']).toMatch(/^text\/javascript/);
    const code = Buffer.from(js!.body as Uint8Array).toString('utf8');
    // The bundle carries the shared builder's stamp wording and ECharts, and names no other host.
    expect(code).toContain('data through');
    expect(code).toContain('finops.console.credential');
    expect(code).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\//i);
  }, 120_000);

  it('redirects /console to /console/, 404s an unknown file and leaves other paths to the API', async () => {
    expect(await get('/console')).toMatchObject({ status: 302, headers: { location: CONSOLE_PATH } });
    expect(await get(`${CONSOLE_PATH}nope.js`)).toMatchObject({ status: 404 });
    expect(await get('/dashboard-v2')).toBeUndefined();
    expect(await consoleHook.handle!('POST', `${CONSOLE_PATH}config.json`, {})).toBeUndefined();
  });

  it('writes the same files for the CDK asset, synchronously (the stack bundles it at synth)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-asset-'));
    try {
      const names = writeConsoleSync(dir);
      const files = await bundleConsole();
      expect([...names].sort()).toEqual([...files.keys()].sort());
      for (const [name, body] of files)
        expect(Buffer.compare(readFileSync(join(dir, name)), Buffer.from(body))).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
