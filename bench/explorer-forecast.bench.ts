/**
 * What the forecast adds to an explorer answer (issue 27: at most 20 %): ~1M generated FOCUS rows
 * (`WAREHOUSE_BENCH_ROWS` to change) over the 365 days before `NOW`, one explorer request by day
 * grouped by resource (the top 100 and `Other`) over the last 30 days, asked without a forecast
 * and with `forecastDays: 28` (the model over each series' 365 days of history), alternately in the
 * same process on the same database; the ratio of the medians (target ≤ 1.2). `model` is the
 * request asked again on the same data (the forecast's caches hold its shown groups' history and
 * each series' fitted selection: what a dashboard reloaded during the day costs); `modelStored`
 * empties those caches before each run but finds the answer kept in the table (DynamoDB Local: the
 * same request in another Lambda container on the same data); `modelCold` empties them and finds
 * nothing kept (the first request of all on new data: the model over every series, the answer then
 * written). The weekday-mean baseline is measured alike (warm). Figures only: nothing here is
 * asserted by a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { forecastAnswerStore } from '../shared/domain/queries/adapters/forecast-answers';
import { runExplorer } from '../shared/domain/queries/engine';
import { clearForecastCaches } from '../shared/domain/queries/explorer-forecast';
import type { ForecastAnswerStore } from '../shared/domain/queries/forecast-answers';
import { ExplorerRequestSchema } from '../shared/model/query-model';
import { resetDuckDb } from '../shared/warehouse/duckdb/database';
import { costQuery as cost } from '../test/support/explorer';
import { benchRows, focusDuckDb, median, resourcesFor, round, startStack, timed } from './support';

const ORG = 'org_fxbench';
const MONTHS = [
  '2023-10',
  '2023-11',
  '2023-12',
  '2024-01',
  '2024-02',
  '2024-03',
  '2024-04',
  '2024-05',
  '2024-06',
  '2024-07',
  '2024-08',
  '2024-09',
];
const NOW = new Date('2024-10-02T12:00:00Z');
const RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 5);
const PERIOD = { startDate: '2024-09-01T00:00:00Z', endDate: '2024-09-30T00:00:00Z', aggBy: 'Day' };

export default async function explorerForecastBench(): Promise<Record<string, unknown>> {
  const target = benchRows();
  const dir = mkdtempSync(join(tmpdir(), 'fx-explorer-bench-'));
  // The table the forecasts are kept in (DynamoDB Local, as `npm start` runs it).
  const stack = await startStack();
  // The first request of all: nothing found, the answer written as the table's store writes it.
  const missing: ForecastAnswerStore = { get: async () => undefined, put: forecastAnswerStore.put };
  const storeOf = (name: string) => (name === 'modelCold' ? missing : forecastAnswerStore);
  try {
    const rows = await focusDuckDb(dir, 'forecast', ORG, {
      seed: 3,
      months: MONTHS,
      resourcesPerProvider: resourcesFor(target, 366),
      accountPrefix: '4000',
    });
    const request = (extra: Record<string, unknown>) =>
      v.parse(ExplorerRequestSchema, {
        period: { ...PERIOD, ...extra },
        queries: [cost('a', { groupBy: 'resource_id' })],
      });
    const variants = {
      without: request({}),
      model: request({ forecastDays: 28 }),
      modelStored: request({ forecastDays: 28 }),
      modelCold: request({ forecastDays: 28 }),
      baseline: request({ forecastDays: 28, forecastMethod: 'weekday-mean' }),
    };
    const ms: Record<keyof typeof variants, number[]> = {
      without: [],
      model: [],
      modelStored: [],
      modelCold: [],
      baseline: [],
    };
    const names = Object.keys(variants) as (keyof typeof variants)[];
    let groups = 0;
    let historyDays = 0;
    const ask = (name: keyof typeof variants) =>
      runExplorer(variants[name], { orgId: ORG, now: NOW, forecastAnswers: storeOf(name) });
    for (const name of names) await ask(name); // warm up (and the answer kept)
    for (let i = 0; i < RUNS; i++) {
      // Rotate the order so a busy moment of the shared machine lands on every variant alike.
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        if (name === 'modelCold' || name === 'modelStored') clearForecastCaches();
        const t = await timed(() => ask(name));
        ms[name].push(t.ms);
        if (name === 'model') {
          const series = t.result.queries[0]?.series ?? [];
          groups = series.length;
          historyDays = Math.max(...series.map((s) => s.forecastAccuracy?.history.days ?? 0));
        }
      }
    }
    const w = median(ms.without);
    const m = median(ms.model);
    const b = median(ms.baseline);
    const cold = median(ms.modelCold);
    const stored = median(ms.modelStored);
    const out = {
      rows,
      series: groups,
      historyDays,
      withoutMs: round(w),
      withModelMs: round(m),
      withModelStoredMs: round(stored),
      withModelColdMs: round(cold),
      withBaselineMs: round(b),
      ratio: round(m / w, 2),
      storedRatio: round(stored / w, 2),
      coldRatio: round(cold / w, 2),
      baselineRatio: round(b / w, 2),
      target: 1.2,
      runs: RUNS,
    };
    process.stdout.write(`  explorer forecast: ${JSON.stringify(out)}\n`);
    return out;
  } finally {
    resetDuckDb();
    rmSync(dir, { recursive: true, force: true });
    await stack.stop();
  }
}
