import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import * as v from 'valibot';
import { CHART_ASSET_FILES, esbuildOptions, isSplitEntry, loadedAtImport } from '../infra/bundling';
import { renderAttachments } from '../shared/domain/reports/render/attachments';
import { formatReport } from '../shared/domain/reports/render/format';
import type { RenderContext } from '../shared/domain/reports/render/widget-data';
import { renderWidget } from '../shared/domain/reports/render/widgets';
import type { Dashboard } from '../shared/model/dashboards';
import { ReportWidget } from '../shared/model/report-schemas';
import { importMs, ingestFocus, percentile, ROOT, round, useDuckDb } from './support';

const ORG = 'org_rbench';
const NOW = new Date('2024-11-04T08:00:00Z');
const RUNS = Number(process.env.BENCH_RENDER_RUNS ?? 7);

async function ms(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function timing(
  fn: () => Promise<unknown>,
): Promise<{ medianMs: number; p95Ms: number; firstMs: number }> {
  const firstMs = await ms(fn);
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await ms(fn));
  return {
    firstMs: round(firstMs),
    medianMs: round(percentile(runs, 50)),
    p95Ms: round(percentile(runs, 95)),
  };
}

const q = (chartType: string, extra: Record<string, unknown> = {}) => ({
  type: 'cost',
  name: 'a',
  colorIndex: 0,
  chartType,
  ...extra,
});
const dashWidget = (key: string, y: number, request: Record<string, unknown>) => ({
  key,
  x: 0,
  y,
  w: 12,
  h: 4,
  title: key,
  description: '',
  source: { type: 'advancedExplorer', request },
});
const DASHBOARD = {
  id: 'dash_bench',
  name: 'Bench dashboard',
  datePreset: 'LAST_MONTH',
  startDate: null,
  endDate: null,
  currency: null,
  conditions: null,
  widgets: [
    dashWidget('daily', 0, { period: { aggBy: 'Day' }, queries: [q('BAR', { groupBy: ['provider'] })] }),
    dashWidget('services', 1, {
      period: { aggBy: 'Period' },
      queries: [q('WATERFALL', { groupBy: ['service'] })],
    }),
    dashWidget('regions', 2, {
      period: { aggBy: 'Period' },
      queries: [q('TABLE', { groupBy: ['region'] })],
      displayOptions: { topN: 10 },
    }),
  ],
} as unknown as Dashboard;

const WIDGETS: Record<string, unknown> = {
  TEXT: {
    type: 'TEXT',
    contentMarkdown: '## Weekly\n\nSpend **rose**; see [the dashboard](https://example.com).',
  },
  DIGEST: { type: 'DIGEST', additionalGroupBy: ['service'], display: 'tree' },
  TOP_FLOP: { type: 'TOP_FLOP', groupBy: 'service' },
  'GRAPH_SNAPSHOT BAR': { type: 'GRAPH_SNAPSHOT', aggBy: 'Day', chartType: 'BAR' },
  'GRAPH_SNAPSHOT LINE': { type: 'GRAPH_SNAPSHOT', groupBy: 'service', aggBy: 'Day', chartType: 'LINE' },
  'GRAPH_SNAPSHOT AREA': { type: 'GRAPH_SNAPSHOT', aggBy: 'Week', chartType: 'AREA' },
  'GRAPH_SNAPSHOT WATERFALL': {
    type: 'GRAPH_SNAPSHOT',
    groupBy: 'service',
    aggBy: 'Month',
    chartType: 'WATERFALL',
  },
  'GRAPH_SNAPSHOT TABLE': { type: 'GRAPH_SNAPSHOT', groupBy: 'region', aggBy: 'Month', chartType: 'TABLE' },
  'DASHBOARD_PDF (3 widgets)': { type: 'DASHBOARD_PDF', dashboardId: DASHBOARD.id },
};

async function renderTimes(dir: string): Promise<Record<string, unknown>> {
  useDuckDb(dir, 'render');
  const rows = await ingestFocus(dir, ORG, {
    seed: 3,
    months: ['2024-09', '2024-10'],
    resourcesPerProvider: 40,
    until: '2024-10-21',
    accountPrefix: '4000',
  });
  const ctx: RenderContext = {
    orgId: ORG,
    context: { metricId: 'cost', groupBy: 'provider', datePreset: 'LAST_MONTH', currency: 'USD' },
    now: NOW,
    timeZone: 'UTC',
    dashboards: async (id) => (id === DASHBOARD.id ? DASHBOARD : null),
  };
  const out: Record<string, unknown> = { rows, runs: RUNS };
  const perWidget: Record<string, unknown> = {};
  for (const [name, input] of Object.entries(WIDGETS)) {
    const widget = v.parse(ReportWidget, input);
    const data = await renderWidget(ctx, widget);
    const fileBytes = (await renderAttachments([data], { name: 'bench' }, NOW.toISOString()))[0]?.content
      .length;
    perWidget[name] = {
      data: await timing(() => renderWidget(ctx, widget)),
      // The file alone (PNG or PDF) from the data; the text formats (HTML, text, Slack) for the others.
      file: await timing(async () => {
        const files = await renderAttachments([data], { name: 'bench' }, NOW.toISOString());
        formatReport({ name: 'bench', description: '' }, NOW.toISOString(), [data], files);
      }),
      ...(fileBytes ? { fileBytes } : {}),
    };
  }
  out.perWidget = perWidget;
  return out;
}

/** Bytes in the given outputs per package (or first-party folder), largest first. */
function composition(metafile: Metafile, outputs: string[], top = 12): Record<string, number> {
  const sizes = new Map<string, number>();
  for (const [input, info] of outputs.flatMap((o) => Object.entries(metafile.outputs[o]?.inputs ?? {}))) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    const name = pkg ?? input.split('/').slice(0, 2).join('/');
    sizes.set(name, (sizes.get(name) ?? 0) + info.bytesInOutput);
  }
  return Object.fromEntries([...sizes].sort((a, b) => b[1] - a[1]).slice(0, top));
}

/** Median import time of each bundle, measured round-robin after one warm-up each. */
function imports(files: Record<string, string>, runs = 9): Record<string, number> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(files).map((k) => [k, []]));
  for (const f of Object.values(files)) importMs(f);
  for (let i = 0; i < runs; i++) for (const [k, f] of Object.entries(files)) samples[k]!.push(importMs(f));
  return Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, round(percentile(xs, 50))]));
}

interface BuiltBundle {
  file: string;
  /** What an import loads: the entry file and the chunks it imports statically. */
  bytes: number;
  /** Chunks behind dynamic imports (split builds only), loaded when first needed. */
  lazyBytes: number;
  loaded: string[];
  lazy: string[];
  metafile: Metafile;
}

async function bundleBytes(
  source: string,
  outDir: string,
  flavour: { rendersCharts?: boolean; split?: boolean } = {},
): Promise<BuiltBundle> {
  const split = flavour.split ?? isSplitEntry(source);
  const dir = join(outDir, `${source.replaceAll('/', '__')}${split ? '.split' : ''}`);
  const file = join(dir, 'index.mjs');
  const result = await build({
    ...esbuildOptions(join(ROOT, source), file, { ...flavour, split }),
    absWorkingDir: ROOT,
  });
  const metafile = result.metafile as Metafile;
  const key = relative(ROOT, file);
  if (!metafile.outputs[key]) throw new Error(`esbuild wrote no ${key} for ${source}`);
  const loaded = loadedAtImport(metafile, key);
  const lazy = Object.keys(metafile.outputs).filter((o) => !loaded.includes(o));
  const bytesOf = (files: string[]) => files.reduce((a, f) => a + (metafile.outputs[f]?.bytes ?? 0), 0);
  return { file, bytes: bytesOf(loaded), lazyBytes: bytesOf(lazy), loaded, lazy, metafile };
}

const WORKER = 'functions/workers/report-delivery.ts';

async function bundle(dir: string): Promise<Record<string, unknown>> {
  const outDir = join(dir, 'bundles');
  mkdirSync(outDir, { recursive: true });
  const floor = await bundleBytes('bench/floor/handler.ts', outDir);
  const worker = await bundleBytes(WORKER, outDir, { rendersCharts: true });
  const oneFile = await bundleBytes(WORKER, outDir, { rendersCharts: true, split: false });
  const assets = Object.fromEntries(CHART_ASSET_FILES.map((f) => [f.to, statSync(join(ROOT, f.from)).size]));
  const assetBytes = Object.values(assets).reduce((a, b) => a + b, 0);
  const importMedianMs = imports({ floor: floor.file, worker: worker.file, workerOneFile: oneFile.file });
  const total = worker.bytes + worker.lazyBytes;
  return {
    split: isSplitEntry(WORKER),
    importMedianMs,
    importVsFloor: round((importMedianMs.worker ?? 0) / (importMedianMs.floor ?? 1), 2),
    floorBytes: floor.bytes,
    workerBytes: worker.bytes,
    sizeVsFloor: round(worker.bytes / floor.bytes, 2),
    workerLazyBytes: worker.lazyBytes,
    workerOneFileBytes: oneFile.bytes,
    oneFileVsFloor: round(oneFile.bytes / floor.bytes, 2),
    assets,
    assetBytes,
    withAssetsBytes: total + assetBytes,
    withAssetsVsFloor: round((total + assetBytes) / floor.bytes, 2),
    target: 'bundle (loaded at import) ≤ 2× the floor',
    composition: composition(worker.metafile, worker.loaded),
    lazyComposition: composition(worker.metafile, worker.lazy),
  };
}
export default async function reportRenderBench(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'render-bench-'));
  try {
    return { bundle: await bundle(dir), render: await renderTimes(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
