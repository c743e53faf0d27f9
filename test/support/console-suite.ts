import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openConsole, suiteBrowser } from './browser';
import { session } from './session';

/** Where the console pages' browser tests put their screenshots. */
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'console-pages');

/** A console pages suite: its browser, its pages of the local stack's console, its screenshots. */
export interface ConsoleSuite {
  /** The suite browser (suiteBrowser), launched before the suite's tests. */
  browser: () => Browser;
  /** A new page of `size` on the local stack's console, signed in with `credential` (openConsole). */
  open: (
    credential: string,
    size: { width: number; height: number },
  ) => Promise<{ page: Page; errors: string[] }>;
  /** The path of a screenshot called `name` in test/artifacts/console-pages/. */
  shot: (name: string) => string;
}

/**
 * The set-up every console pages browser test shares: a suite browser whose artifacts folder is
 * test/artifacts/console-pages/, pages opened on the running local stack's console, and the paths
 * of the screenshots taken there.
 */
export function consoleSuite(): ConsoleSuite {
  const browser = suiteBrowser(ARTIFACTS);
  return {
    browser,
    open: (credential, size) => openConsole(browser(), `${session().baseUrl}/console/`, credential, size),
    shot: (name) => join(ARTIFACTS, name),
  };
}
