import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Finds a Chromium for the console's browser tests (test/e2e/console.test.ts) and the console
 * benchmark, in this order: `CHROMIUM_PATH`; a system chromium or chrome on the PATH (or in the
 * usual macOS place); the browser Playwright downloads (`npx playwright-core install chromium`).
 * With none, a run as root on Debian or Ubuntu installs Debian's `chromium` with apt-get, saying so,
 * as `.ci/run` does; anywhere else it fails with the one command to run.
 */
export type BrowserPlan =
  | { kind: 'found'; path: string; source: string }
  | { kind: 'install'; commands: string[][]; say: string }
  | { kind: 'missing'; message: string };

export interface BrowserProbe {
  env: Record<string, string | undefined>;
  isExecutable(path: string): boolean;
  /** Where Playwright's own Chromium would be (it need not exist). */
  playwrightPath(): string | undefined;
  isRoot: boolean;
  /** The text of /etc/os-release, if any. */
  osRelease: string | undefined;
}

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
const MAC_PATHS = [
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];
export const APT_INSTALL = ['apt-get', 'install', '-y', '-qq', 'chromium'];
export const PLAYWRIGHT_INSTALL = 'npx playwright-core install chromium';

function isDebianLike(osRelease: string | undefined): boolean {
  if (!osRelease) return false;
  const field = (name: string) => new RegExp(`^${name}="?([^"\\n]*)"?$`, 'm').exec(osRelease)?.[1] ?? '';
  const ids = `${field('ID')} ${field('ID_LIKE')}`.split(/\s+/);
  return ids.includes('debian') || ids.includes('ubuntu');
}

export function planBrowser(probe: BrowserProbe): BrowserPlan {
  const configured = probe.env.CHROMIUM_PATH;
  if (configured) {
    if (probe.isExecutable(configured)) return { kind: 'found', path: configured, source: 'CHROMIUM_PATH' };
    // A path chosen on purpose is not silently replaced by another browser.
    return {
      kind: 'missing',
      message: `CHROMIUM_PATH=${configured} is not an executable file: correct or unset it`,
    };
  }
  const dirs = (probe.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of SYSTEM_NAMES)
    for (const dir of dirs) {
      const path = join(dir, name);
      if (probe.isExecutable(path)) return { kind: 'found', path, source: 'the system' };
    }
  for (const path of MAC_PATHS)
    if (probe.isExecutable(path)) return { kind: 'found', path, source: 'the system' };
  const own = probe.playwrightPath();
  if (own && probe.isExecutable(own)) return { kind: 'found', path: own, source: 'Playwright' };

  const debian = isDebianLike(probe.osRelease);
  if (debian && probe.isRoot)
    return {
      kind: 'install',
      commands: [['apt-get', 'update', '-qq'], APT_INSTALL],
      say: `No Chromium found (CHROMIUM_PATH, ${SYSTEM_NAMES.join('/')} on the PATH, Playwright's): installing Debian's chromium (${APT_INSTALL.join(' ')}) for the console's browser tests`,
    };
  const command = debian ? `sudo apt-get install -y chromium` : PLAYWRIGHT_INSTALL;
  return {
    kind: 'missing',
    message: `No Chromium for the console's browser tests. Run: ${command} (or set CHROMIUM_PATH to a Chromium or Chrome)`,
  };
}

function systemProbe(): BrowserProbe {
  let osRelease: string | undefined;
  try {
    osRelease = readFileSync('/etc/os-release', 'utf8');
  } catch {
    osRelease = undefined;
  }
  return {
    env: process.env,
    isExecutable: (path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    playwrightPath: () => {
      try {
        return chromium.executablePath();
      } catch {
        return undefined;
      }
    },
    isRoot: process.getuid?.() === 0,
    osRelease,
  };
}

/** The path of a Chromium, or undefined (for the benchmark, which skips without one). */
export function findBrowser(): string | undefined {
  const plan = planBrowser(systemProbe());
  return plan.kind === 'found' ? plan.path : undefined;
}

/** The path of a Chromium, installing Debian's when the plan says so; throws with the command to run. */
export function ensureBrowser(): string {
  const plan = planBrowser(systemProbe());
  if (plan.kind === 'found') return plan.path;
  if (plan.kind === 'missing') throw new Error(plan.message);
  process.stderr.write(`${plan.say}\n`);
  for (const [cmd, ...args] of plan.commands)
    execFileSync(cmd as string, args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  const after = planBrowser(systemProbe());
  if (after.kind === 'found') return after.path;
  throw new Error(
    `apt-get installed chromium but no browser was found afterwards. Run: ${PLAYWRIGHT_INSTALL} (or set CHROMIUM_PATH)`,
  );
}

/** A headless Chromium found (or installed) by `ensureBrowser`, driven by playwright-core. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: ensureBrowser(), args: ['--no-sandbox'] });
}

/**
 * A headless Chromium for the enclosing suite (`launchChromium`), launched before its tests with its
 * artifacts folder made (ten minutes allowed: Debian's chromium may have to be installed first) and
 * closed after them; the getter answers it once the suite runs.
 */
export function suiteBrowser(artifacts: string): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    browser = await launchChromium();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the suite browser is not launched yet');
    return browser;
  };
}

/** Signs the console at `consoleUrl` in with a pasted credential (an `ak_` key or a JWT). */
export async function signInConsole(page: Page, consoleUrl: string, credential: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.fill('#credential', credential);
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:text("Dashboards")', { timeout: 30_000 });
}

/** The console's two checked widths: a phone (390 px) and a desktop (1440 px). */
export const CONSOLE_SIZES = [
  { name: '390', width: 390, height: 844 },
  { name: '1440', width: 1440, height: 900 },
];

/** A new page of the given size, signed in to the console, collecting its uncaught errors. */
export async function openConsole(
  browser: Browser,
  consoleUrl: string,
  credential: string,
  size: { width: number; height: number },
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signInConsole(page, consoleUrl, credential);
  return { page, errors };
}

/** How far the page scrolls sideways (0: not at all). */
export const sidewaysScroll = (page: Page) =>
  page.evaluate(() => (document.scrollingElement?.scrollWidth ?? 0) - window.innerWidth);

/**
 * A console page's last checks: it does not scroll sideways, a full-page screenshot goes to `path`,
 * it raised no page error (`errors`, from openConsole); then the page is closed.
 */
export async function closeCheckedPage(page: Page, errors: string[], path: string): Promise<void> {
  expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
  await page.screenshot({ path, fullPage: true });
  expect(errors).toEqual([]);
  await page.close();
}

/**
 * Every http(s) URL a rendered message carries: its text, its HTML's hrefs (unescaped) and JSON
 * `url`s (not an Adaptive Card's `$schema`, not its images: `cardImagesOf`).
 */
export function linksOf(message: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, key = ''): void => {
    if (key === '$schema' || isCardImage(v)) return;
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

const isCardImage = (v: unknown): v is { url: string; altText?: string } =>
  Boolean(v && typeof v === 'object' && (v as { type?: unknown }).type === 'Image');

/** The `Image` elements of an Adaptive Card (a Teams message): their URLs and alt texts. */
export function cardImagesOf(message: unknown): { url: string; altText?: string }[] {
  const found: { url: string; altText?: string }[] = [];
  const walk = (v: unknown): void => {
    if (isCardImage(v)) found.push({ url: v.url, altText: v.altText });
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(message);
  return found;
}
