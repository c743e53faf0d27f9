import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's `chromium`, driven by playwright-core (CHROMIUM_PATH to use another). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Signs the console at `consoleUrl` in with a pasted credential (an `ak_` key or a JWT). */
export async function signInConsole(page: Page, consoleUrl: string, credential: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.fill('#credential', credential);
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:text("Dashboards")', { timeout: 30_000 });
}

/** Every http(s) URL a rendered message carries: its text, its HTML's hrefs (unescaped) and JSON `url`s (not an Adaptive Card's `$schema`). */
export function linksOf(message: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, key = ''): void => {
    if (key === '$schema') return;
    if (typeof v === 'string') {
      if (key === 'url' && /^https?:\/\//.test(v)) found.add(v);
      for (const m of v.matchAll(/href="([^"]+)"/g)) found.add(m[1]!.replaceAll('&amp;', '&'));
      if (!v.includes('href="')) for (const m of v.matchAll(/(?<=^|\s)https?:\/\/\S+/g)) found.add(m[0]);
    } else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(message);
  return [...found];
}
