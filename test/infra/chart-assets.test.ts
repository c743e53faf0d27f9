import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CHART_ASSET_FILES } from '../../infra/bundling';
import { fontPath, resvgWasmPath } from '../../shared/domain/reports/render/assets';
import { workers } from '../../shared/queues';
import { synthWorkerAssets } from './support';

// A real synth (bundling on) of the workers that render charts: their asset must carry the fonts
// and resvg's wasm in `assets/`, byte for byte, where the render code looks for them in a Lambda.
const ROOT = resolve(__dirname, '..', '..');
const outdir = mkdtempSync(join(tmpdir(), 'cms-chart-asset-'));
let assetDirs: string[];

beforeAll(() => {
  const chartWorkers = workers.filter((w) => w.rendersCharts);
  // Reports' charts and PDFs; cost alerts' charts and budget alerts' burn charts (alert-evaluate).
  expect(chartWorkers.map((w) => w.name).sort()).toEqual(['alert-evaluate', 'report-delivery']);
  assetDirs = synthWorkerAssets(outdir, chartWorkers);
  expect(assetDirs).toHaveLength(2);
}, 180_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the asset of a worker that renders charts', () => {
  it('holds the bundle, the fonts with their licence and the resvg wasm, as in the repository', () => {
    for (const dir of assetDirs) {
      readFileSync(join(dir, 'index.mjs'));
      for (const f of CHART_ASSET_FILES)
        expect(readFileSync(join(dir, f.to)).equals(readFileSync(join(ROOT, f.from)))).toBe(true);
    }
  });

  it('are what the render code reads from the Lambda task root, before the repository copy', () => {
    const saved = { root: process.env.LAMBDA_TASK_ROOT, dir: process.env.REPORT_ASSETS_DIR };
    process.env.LAMBDA_TASK_ROOT = assetDirs[0]!;
    delete process.env.REPORT_ASSETS_DIR;
    try {
      for (const p of [fontPath('regular'), fontPath('bold'), resvgWasmPath()])
        expect(p.startsWith(assetDirs[0]!)).toBe(true);
    } finally {
      if (saved.root === undefined) delete process.env.LAMBDA_TASK_ROOT;
      else process.env.LAMBDA_TASK_ROOT = saved.root;
      if (saved.dir !== undefined) process.env.REPORT_ASSETS_DIR = saved.dir;
    }
  });
});
