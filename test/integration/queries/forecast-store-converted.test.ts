import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { writeFocusCsv } from '../../../infra/local/demo-data/generator';
import { loadRates } from '../../../shared/domain/fx/service';
import { runExplorer } from '../../../shared/domain/queries/engine';
import { clearForecastCaches } from '../../../shared/domain/queries/explorer-forecast';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { costQuery as q } from '../../support/explorer';
import { countingStore } from '../../support/forecast-store';

/**
 * A converted forecast kept in the store (docs/queries.md, "Forecast"): read back by another
 * process, the whole answer — the forecasts and the answer's `conversion`, which names the rates
 * the history was converted at — is the one computed, with or without a kept answer.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const org = `org_fstorefx_${run}`;
const dir = mkdtempSync(join(tmpdir(), 'forecast-store-fx-'));
const now = new Date('2024-10-22T12:00:00Z');
const FIXTURES = join(__dirname, '../../fixtures/fx');

const request = () =>
  v.parse(ExplorerRequestSchema, {
    period: {
      startDate: '2024-10-01T00:00:00Z',
      endDate: '2024-10-31T00:00:00Z',
      aggBy: 'Week',
      forecastDays: 7,
    },
    queries: [q('a', { groupBy: 'service', currency: 'EUR' })],
    limitOverride: 3,
  });

beforeAll(async () => {
  await loadRates(readFileSync(join(FIXTURES, 'eurofxref-hist-2024-09.csv'), 'utf8'));
  const path = join(dir, 'usd.csv');
  await writeFocusCsv(path, {
    seed: 21,
    months: ['2024-09', '2024-10'],
    resourcesPerProvider: 3,
    until: '2024-10-21',
    accountPrefix: `fsfx${run}`,
  });
  await warehouse.ingestFile({ orgId: org, path, sourceName: 'usd.csv' });
}, 120_000);

type Answer = Awaited<ReturnType<typeof runExplorer>>;
const forecastsOf = (r: Answer) =>
  r.queries[0]?.series.map((s) => ({ group: s.group, forecast: s.forecast, accuracy: s.forecastAccuracy }));
const valuesOf = (r: Answer) =>
  r.queries[0]?.series.flatMap((s) => [s.total ?? 0, ...s.points.map((p) => p.value ?? 0)]) ?? [];

describe('a converted forecast kept in the store', () => {
  it('is read back by another process as the whole answer computed, conversion included', async () => {
    const { store, seen } = countingStore();
    clearForecastCaches();
    const computed = await runExplorer(request(), { orgId: org, now, forecastAnswers: store });
    expect(seen).toMatchObject({ gets: 1, hits: 0, puts: 1 });
    expect(computed.conversion).toMatchObject({ from: ['USD'], to: 'EUR' });
    expect(computed.queries[0]?.series.every((s) => s.forecast?.length)).toBe(true);
    clearForecastCaches();
    const again = await runExplorer(request(), { orgId: org, now, forecastAnswers: store });
    expect(seen).toMatchObject({ gets: 2, hits: 1, puts: 1 });
    clearForecastCaches();
    const fresh = await runExplorer(request(), { orgId: org, now, forecastAnswers: null });
    for (const other of [again, fresh]) {
      expect(other.conversion).toEqual(computed.conversion);
      expect(forecastsOf(other)).toEqual(forecastsOf(computed));
      // The actual figures are read again each time: DuckDB's parallel sums may differ in their last bits.
      expect(valuesOf(other)).toEqual(valuesOf(computed).map((x) => expect.closeTo(x, 9)));
    }
  }, 120_000);
});
