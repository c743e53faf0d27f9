/**
 * The web console's benchmark (`npm run bench -- console`):
 * - bundle size: each file the console ships (console/bundle.ts), raw and gzip;
 * - time to first chart: on the local stack (warm: the page, bundle and warehouse were loaded once
 *   before), a 20-widget dashboard opened in headless Chromium (test/support/browser.ts finds it) at 1280×900
 *   with the credential already in session storage; from navigation start to the first widget
 *   drawn (a canvas or a table), to all 20 answers in, and (scrolled to the bottom: charts are
 *   drawn as they come into view) to all 20 drawn. Target: first chart under 1.5 s. Median of 5.
 * Figures only: no test asserts on them.
 */
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { stop as stopEsbuild } from 'esbuild';
import { chromium } from 'playwright-core';
import { bundleConsole } from '../console/bundle';
import { WIDGET_CONCURRENCY } from '../console/src/request-queue';
import { findBrowser } from '../test/support/browser';
import { startStack } from './support';

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 5);
const CHART_TYPES = ['BAR', 'LINE', 'AREA', 'WATERFALL', 'TABLE'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function bundleFigures(): Promise<Record<string, unknown>> {
  const t0 = Date.now();
  const files = await bundleConsole();
  const buildMs = Date.now() - t0;
  await stopEsbuild();
  const perFile = Object.fromEntries(
    [...files].map(([name, body]) => [name, { bytes: body.length, gzipBytes: gzipSync(body).length }]),
  );
  const gzipTotal = [...files.values()].reduce((a, b) => a + gzipSync(b).length, 0);
  return { files: perFile, totalGzipBytes: gzipTotal, buildMs };
}

async function timeToFirstChart(): Promise<Record<string, unknown>> {
  const executablePath = findBrowser();
  if (!executablePath) return { skipped: 'no Chromium (CHROMIUM_PATH, the system, Playwright)' };
  const stack = await startStack(['--no-ticker']);
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  try {
    const { baseUrl, apiKeys } = stack.session;
    const widgets = Array.from({ length: 20 }, (_, i) => ({
      key: `w${i + 1}`,
      x: (i % 2) * 6,
      y: Math.floor(i / 2) * 4,
      w: 6,
      h: 4,
      title: `Widget ${i + 1}`,
      source: {
        type: 'advancedExplorer',
        request: {
          period: { datePreset: 'LAST_3_MONTHS', aggBy: i % 3 === 0 ? 'Week' : 'Month' },
          queries: [
            {
              type: 'cost',
              name: 'a',
              colorIndex: 0,
              chartType: CHART_TYPES[i % CHART_TYPES.length],
              groupBy: i % 2 ? 'provider' : 'ServiceName',
            },
          ],
        },
      },
    }));
    const created = await fetch(`${baseUrl}/dashboard-v2`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKeys.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench: 20 widgets', type: 'PUBLIC', widgets }),
    });
    if (created.status !== 201)
      throw new Error(`create dashboard: ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((key: string) => {
      sessionStorage.setItem('finops.console.credential', key);
    }, apiKeys.admin);
    // The page notes when its first chart appears (performance.now(), from navigation start).
    await context.addInitScript(`(() => {
      const mo = new MutationObserver(() => {
        if (document.querySelector('.widget canvas, .widget table')) {
          window.__firstChart = Math.round(performance.now());
          mo.disconnect();
        }
      });
      document.addEventListener('DOMContentLoaded', () => mo.observe(document.body, { childList: true, subtree: true }));
    })()`);
    const url = `${baseUrl}/console/#/dashboards/${id}`;
    const measure = async () => {
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(url);
      await page.waitForSelector('.widget canvas, .widget table', { timeout: 60_000 });
      const first = Date.now() - t0;
      // Every widget's answer in (charts off screen are drawn when scrolled to).
      await page.waitForFunction(
        () =>
          document.querySelectorAll('.widget').length === 20 &&
          [...document.querySelectorAll('.widget')].every((w) => w.getAttribute('data-state') !== 'loading'),
        undefined,
        { timeout: 60_000, polling: 50 },
      );
      const loaded = Date.now() - t0;
      // Scrolled down the page, a screen at a time: every widget drawn.
      // (Scripts as text: tsx names functions with a helper the page does not have.)
      await page.evaluate(`(async () => {
        for (let y = 0; y <= document.body.scrollHeight; y += 450) {
          window.scrollTo(0, y);
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        }
      })()`);
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('.widget')].every((w) =>
            w.querySelector('canvas, table, .empty, .error'),
          ),
        undefined,
        { timeout: 60_000, polling: 50 },
      );
      const all = Date.now() - t0;
      // Where the first chart's time goes: the page's own files, the dashboard, the first answer.
      const timing = (await page.evaluate(`(() => {
        const rs = performance.getEntriesByType('resource');
        const end = (re) => Math.round(Math.min(...rs.filter((r) => re.test(r.name)).map((r) => r.responseEnd)));
        return {
          mainJsMs: end(/main\\.js$/),
          dashboardMs: end(/\\/dashboard-v2\\/[^/]+$/),
          firstWidgetDataMs: end(/\\/widgets\\/[^/]+\\/data$/),
          firstChartInPageMs: window.__firstChart,
        };
      })()`)) as {
        mainJsMs: number;
        dashboardMs: number;
        firstWidgetDataMs: number;
        firstChartInPageMs: number;
      };
      await page.close();
      return { first, loaded, all, ...timing };
    };
    await measure(); // warm-up: bundle built, handlers loaded, warehouse read once
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measure());
    return {
      widgets: 20,
      runs: RUNS,
      firstChartMs: median(runs.map((r) => r.first)),
      allAnswersMs: median(runs.map((r) => r.loaded)),
      allChartsMs: median(runs.map((r) => r.all)),
      // Medians of the milestones inside the page (resource timing, from navigation start).
      mainJsLoadedMs: median(runs.map((r) => r.mainJsMs)),
      dashboardAnsweredMs: median(runs.map((r) => r.dashboardMs)),
      firstWidgetAnsweredMs: median(runs.map((r) => r.firstWidgetDataMs)),
      firstChartInPageMs: median(runs.map((r) => r.firstChartInPageMs)),
      widgetConcurrency: WIDGET_CONCURRENCY,
      firstChartMsRuns: runs.map((r) => r.first),
      targetFirstChartMs: 1500,
      loadAvg1m: Math.round(loadavg()[0]! * 100) / 100,
    };
  } finally {
    await browser.close();
    await stack.stop();
  }
}

export default async function consoleBench(): Promise<Record<string, unknown>> {
  return { bundle: await bundleFigures(), timeToFirstChart: await timeToFirstChart() };
}
