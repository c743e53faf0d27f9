import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { writeFocusCsv } from '../../../infra/local/demo-data/generator';
import { readForecastAnswer } from '../../../shared/db/forecast-answers-repo';
import { runExplorer } from '../../../shared/domain/queries/engine';
import { clearForecastCaches } from '../../../shared/domain/queries/explorer-forecast';
import type { ForecastAnswerStore } from '../../../shared/domain/queries/forecast-answers';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { DuckDbQueries } from '../../../shared/warehouse/duckdb/queries';
import { setWarehouseQueries } from '../../../shared/warehouse/queries';
import { queryNamed as only, costQuery as q } from '../../support/explorer';
import { countingStore } from '../../support/forecast-store';
import { countingWarehouse } from '../../support/warehouse-calls';

/**
 * The explorer's forecasts kept across processes (docs/queries.md, "Forecast"): a second process
 * (here: the in-process caches emptied) asked the same on the same data answers from the store,
 * exactly what was computed, without computing; new data is a new answer.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const org = `org_fstore_${run}`;
const dir = mkdtempSync(join(tmpdir(), 'forecast-store-'));
const now = new Date('2024-11-25T12:00:00Z');

const request = (groupBy?: string | string[], forecastDays = 14) =>
  v.parse(ExplorerRequestSchema, {
    period: {
      startDate: '2024-11-01T00:00:00Z',
      endDate: '2024-11-30T00:00:00Z',
      aggBy: 'Week',
      forecastDays,
    },
    queries: [q('a', groupBy ? { groupBy } : {})],
    ...(groupBy ? { limitOverride: 3 } : {}),
  });

const forecastsOf = (r: Awaited<ReturnType<typeof runExplorer>>) =>
  only(r, 'a').series.map((s) => ({ group: s.group, forecast: s.forecast, accuracy: s.forecastAccuracy }));

async function ingest(name: string, months: string[], until: string, seed: number) {
  const path = join(dir, name);
  await writeFocusCsv(path, {
    seed,
    months,
    resourcesPerProvider: 3,
    until,
    accountPrefix: `fs${run}${seed}`,
  });
  await warehouse.ingestFile({ orgId: org, path, sourceName: name });
  await warehouse.refreshFeatures(org, { labels: [], vdims: [], enrichments: [] }, 'full');
}

beforeAll(async () => {
  await ingest(
    'a.csv',
    ['2024-05', '2024-06', '2024-07', '2024-08', '2024-09', '2024-10', '2024-11'],
    '2024-11-20',
    11,
  );
}, 180_000);

describe('forecasts kept in the store', () => {
  it.each([
    ['grouped by service', 'service'],
    // Read ranked over the history (several dimensions): kept as well, under the data version.
    ['grouped by service and region', ['service', 'region']],
    ['ungrouped', undefined],
  ] as [string, string | string[] | undefined][])(
    '%s: computed and kept once, then read back by another process as it was computed',
    async (_label, groupBy) => {
      const { store, seen, hashes } = countingStore();
      clearForecastCaches();
      const computed = await runExplorer(request(groupBy), { orgId: org, now, forecastAnswers: store });
      expect(seen).toMatchObject({ gets: 1, hits: 0, puts: 1 });
      const series = forecastsOf(computed);
      expect(series.length).toBe(groupBy ? 4 : 1);
      for (const s of series) expect(s.forecast?.length).toBeGreaterThan(0);
      // The item holds exactly that answer, and the groups it is of.
      const [hash] = [...hashes];
      expect(await readForecastAnswer(org, hash!)).toEqual({
        groups: series.map((s) => s.group),
        series: series.map(({ forecast, accuracy }) => ({ forecast, forecastAccuracy: accuracy })),
      });

      // Another process: nothing in memory; the store answers, nothing is computed or written.
      clearForecastCaches();
      const again = await runExplorer(request(groupBy), { orgId: org, now, forecastAnswers: store });
      expect(seen).toMatchObject({ gets: 2, hits: 1, puts: 1 });
      expect(forecastsOf(again)).toEqual(series);
      // And without any store the model gives the same figures.
      clearForecastCaches();
      const fresh = await runExplorer(request(groupBy), { orgId: org, now, forecastAnswers: null });
      expect(forecastsOf(fresh)).toEqual(series);
    },
    120_000,
  );

  it('new data is a new answer: the kept one is not read for it', async () => {
    const { store, seen } = countingStore();
    clearForecastCaches();
    const before = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: store });
    expect(seen.hits).toBe(1);
    await ingest('b.csv', ['2024-11'], '2024-11-20', 12);
    clearForecastCaches();
    const after = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: store });
    expect(seen).toMatchObject({ gets: 2, hits: 1, puts: 1 });
    expect(forecastsOf(after)).not.toEqual(forecastsOf(before));
  }, 180_000);

  it('a kept answer is found by the data version without reading the history; new data is another version', async () => {
    const { store, seen } = countingStore();
    const calls = new Map<string, number>();
    // New rows, then the refresh that makes them the org's queried rows.
    const upload = async (name: string, seed: number, months: string[]) => {
      const path = join(dir, name);
      await writeFocusCsv(path, {
        seed,
        months,
        resourcesPerProvider: 3,
        until: '2024-11-20',
        accountPrefix: `fs${run}${seed}`,
      });
      await warehouse.ingestFile({ orgId: org, path, sourceName: name });
      await warehouse.refreshFeatures(org, { labels: [], vdims: [], enrichments: [] }, 'full');
    };
    setWarehouseQueries(countingWarehouse(new DuckDbQueries(), calls));
    try {
      await upload('c.csv', 13, ['2024-11']);
      clearForecastCaches();
      const computed = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: store });
      // The request's own statement, the total over the history and the shown groups' days.
      expect(calls.get('costSeries')).toBe(3);
      expect(seen).toMatchObject({ gets: 1, hits: 0, puts: 1 });
      calls.clear();
      clearForecastCaches();
      const again = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: store });
      // Another process: the request's own statement only; the identity is the data version.
      expect(calls.get('costSeries')).toBe(1);
      expect(calls.get('dataVersion')).toBe(1);
      expect(seen).toMatchObject({ gets: 2, hits: 1, puts: 1 });
      expect(forecastsOf(again)).toEqual(forecastsOf(computed));

      await upload('d.csv', 14, ['2024-09', '2024-10', '2024-11']);
      calls.clear();
      clearForecastCaches();
      const after = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: store });
      expect(seen).toMatchObject({ gets: 3, hits: 1, puts: 2 });
      expect(calls.get('costSeries')).toBe(3);
      expect(forecastsOf(after)).not.toEqual(forecastsOf(computed));
      clearForecastCaches();
      const fresh = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: null });
      expect(forecastsOf(after)).toEqual(forecastsOf(fresh));
    } finally {
      setWarehouseQueries(undefined);
    }
  }, 180_000);

  it('the kept answer is asked of the store before the request’s own statement has ended', async () => {
    const events: string[] = [];
    let storeAsked = () => {};
    let asked = Promise.resolve();
    const { store: counting, seen } = countingStore();
    const store: ForecastAnswerStore = {
      get: async (orgId, hash) => {
        events.push('store get');
        storeAsked();
        return counting.get(orgId, hash);
      },
      put: counting.put,
    };
    const real = new DuckDbQueries();
    const watched = new Proxy(real, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'costSeries' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const statement = (events.filter((e) => e.startsWith('statement')).length >> 1) + 1;
          events.push(`statement ${statement} starts`);
          try {
            return await value.apply(target, args);
          } finally {
            await asked;
            events.push(`statement ${statement} ends`);
          }
        };
      },
    });
    setWarehouseQueries(watched);
    try {
      clearForecastCaches();
      // A horizon no other test asks: computed here, kept, then read.
      const computed = await runExplorer(request('service', 15), { orgId: org, now, forecastAnswers: store });
      expect(seen).toMatchObject({ gets: 1, hits: 0, puts: 1 });
      events.length = 0;
      // From here the request's statement ends once the store is asked, or after 10 s: a store
      // read that waits for the statement's rows comes after its end.
      asked = new Promise<void>((resolve) => {
        storeAsked = resolve;
        setTimeout(resolve, 10_000).unref();
      });
      clearForecastCaches();
      const again = await runExplorer(request('service', 15), { orgId: org, now, forecastAnswers: store });
      expect(forecastsOf(again)).toEqual(forecastsOf(computed));
      expect(seen).toMatchObject({ gets: 2, hits: 1, puts: 1 });
      // One statement (the request's own), and the store read while it ran.
      expect(events).toEqual(['statement 1 starts', 'store get', 'statement 1 ends']);
    } finally {
      setWarehouseQueries(undefined);
    }
  }, 120_000);

  it('a kept answer of other groups is not used: the forecast is computed for the shown ones', async () => {
    const { store, seen } = countingStore();
    clearForecastCaches();
    const computed = await runExplorer(request('service', 16), { orgId: org, now, forecastAnswers: store });
    expect(seen).toMatchObject({ gets: 1, hits: 0, puts: 1 });
    // The same item, its groups renamed (as if the same key had ranked other groups).
    const renamed: ForecastAnswerStore = {
      get: async (orgId, hash) => {
        const found = (await store.get(orgId, hash)) as {
          groups: Record<string, string>[];
          series: unknown[];
        };
        return (
          found && { ...found, groups: found.groups.map((g) => ({ ...g, service: `not-${g.service}` })) }
        );
      },
      put: store.put,
    };
    clearForecastCaches();
    const again = await runExplorer(request('service', 16), { orgId: org, now, forecastAnswers: renamed });
    expect(seen).toMatchObject({ gets: 2, hits: 1, puts: 2 });
    expect(forecastsOf(again)).toEqual(forecastsOf(computed));
  }, 120_000);

  it('a store that fails is not an error: the forecast is computed', async () => {
    const broken: ForecastAnswerStore = {
      get: async () => {
        throw new Error('table unavailable');
      },
      put: async () => {
        throw new Error('table unavailable');
      },
    };
    clearForecastCaches();
    const res = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: broken });
    clearForecastCaches();
    const fresh = await runExplorer(request('service'), { orgId: org, now, forecastAnswers: null });
    expect(forecastsOf(res)).toEqual(forecastsOf(fresh));
  }, 120_000);
});
