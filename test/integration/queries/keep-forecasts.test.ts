import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { writeFocusCsv } from '../../../infra/local/demo-data/generator';
import { db, tableName } from '../../../shared/db/client';
import { keys } from '../../../shared/db/keys';
import { archiveDashboard, createDashboard, readDashboard } from '../../../shared/domain/dashboards/service';
import { forecastAnswerStore } from '../../../shared/domain/queries/adapters/forecast-answers';
import { keepForecastsDeps } from '../../../shared/domain/queries/adapters/keep-forecasts';
import { runExplorer } from '../../../shared/domain/queries/engine';
import { clearForecastCaches } from '../../../shared/domain/queries/explorer-forecast';
import { keepDashboardForecasts } from '../../../shared/domain/queries/keep-forecasts';
import { runDashboardWidget } from '../../../shared/domain/queries/service';
import type { Dashboard } from '../../../shared/model/dashboards';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { simpleWidget } from '../../fixtures/dashboards/realistic';
import { countingStore } from '../../support/forecast-store';
import { adminOf, memberOf } from '../../support/principals';

/**
 * After a refresh the dashboards' forecast widgets are run once and their answers kept, so the
 * first person to open one reads it (docs/queries.md "Forecast").
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const org = `org_keepfc_${run}`;
const dir = mkdtempSync(join(tmpdir(), 'keep-forecasts-'));
const NOW = new Date('2024-11-25T12:00:00Z');
const admin = adminOf(org);
const other = memberOf(org, [], 'user_other');

const period = { startDate: '2024-11-01T00:00:00Z', endDate: '2024-11-30T00:00:00Z', aggBy: 'Week' };
const forecastWidget = (key: string, extra: Record<string, unknown> = {}) =>
  simpleWidget(key, { period: { ...period, forecastDays: 14 }, ...extra });

/** The forecast answers kept for the organisation. */
async function keptItems(): Promise<number> {
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.forecastAnswer(org, '').pk },
    }),
  );
  return res.Items?.length ?? 0;
}

let shown: Dashboard;
let hidden: Dashboard;

beforeAll(async () => {
  const path = join(dir, 'gen.csv');
  await writeFocusCsv(path, {
    seed: 21,
    months: ['2024-06', '2024-07', '2024-08', '2024-09', '2024-10', '2024-11'],
    resourcesPerProvider: 3,
    until: '2024-11-20',
    accountPrefix: `kf${run}`,
  });
  await warehouse.ingestFile({ orgId: org, path, sourceName: 'gen.csv' });
  await warehouse.refreshFeatures(org, { labels: [], vdims: [], enrichments: [] }, 'full');
  // A public dashboard: one forecast widget grouped by service, one without a forecast.
  shown = await createDashboard(admin, {
    name: 'Spend outlook',
    type: 'PUBLIC',
    widgets: [
      forecastWidget('by-service', {
        queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'BAR', groupBy: 'service' }],
        limitOverride: 3,
      }),
      simpleWidget('plain', { period }),
    ],
  });
  // Another user's private dashboard: its forecast is kept too (only its reader will ask for it).
  hidden = await createDashboard(other, { name: 'Mine', widgets: [forecastWidget('total')] });
  // An archived one is not.
  const archived = await createDashboard(admin, {
    name: 'Old',
    type: 'PUBLIC',
    widgets: [forecastWidget('old')],
  });
  await archiveDashboard(admin, archived.id);
}, 180_000);

describe('keeping the dashboards’ forecasts after a refresh', () => {
  it('runs each live forecast widget once and keeps its answer', async () => {
    expect(await keptItems()).toBe(0);
    clearForecastCaches();
    const done = await keepDashboardForecasts(org, { ...keepForecastsDeps(), now: () => NOW });
    expect(done).toEqual({ widgets: 2, views: 0, failed: 0 });
    expect(await keptItems()).toBe(2);
  }, 120_000);

  it('the first reader of each widget reads the kept answer, the one the model computes', async () => {
    for (const [d, key] of [
      [await readDashboard(admin, shown.id), 'by-service'],
      [await readDashboard(other, hidden.id), 'total'],
    ] as const) {
      const widget = d.widgets.find((w) => w.key === key)!;
      const { store: counting, seen } = countingStore();
      clearForecastCaches();
      const ctx = { orgId: org, timeZone: 'UTC', now: NOW };
      const read = await runDashboardWidget(d, widget, { ...ctx, forecastAnswers: counting });
      expect({ key, ...seen }).toEqual({ key, gets: 1, hits: 1, puts: 0 });
      clearForecastCaches();
      const computed = await runDashboardWidget(d, widget, { ...ctx, forecastAnswers: null });
      const forecasts = (r: typeof read) =>
        r.queries.flatMap((q) => q.series.map((s) => [s.forecast, s.forecastAccuracy]));
      expect(forecasts(read)).toEqual(forecasts(computed));
      expect(forecasts(read).every(([f]) => Array.isArray(f) && f.length > 0)).toBe(true);
    }
  }, 120_000);

  it('a dashboard store that fails keeps nothing and fails nothing', async () => {
    const done = await keepDashboardForecasts(org, {
      dashboards: () => {
        throw new Error('table unavailable');
      },
      timeZone: async () => 'UTC',
      now: () => NOW,
      store: forecastAnswerStore,
    });
    expect(done).toEqual({ widgets: 0, views: 0, failed: 0 });
  });

  it('after new data, the views asked lately (an ad-hoc explorer request too) are asked again and kept', async () => {
    const adHoc = v.parse(ExplorerRequestSchema, {
      period: { ...period, forecastDays: 30 },
      queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType: 'BAR', groupBy: 'region' }],
      limitOverride: 2,
    });
    const ctx = { orgId: org, timeZone: 'UTC', now: NOW, currency: 'USD' };
    clearForecastCaches();
    await runExplorer(adHoc, { ...ctx, forecastAnswers: forecastAnswerStore });
    const before = await keptItems();

    // New data and a refresh: every kept answer is for the old data.
    const path = join(dir, 'more.csv');
    await writeFocusCsv(path, {
      seed: 22,
      months: ['2024-11'],
      resourcesPerProvider: 2,
      until: '2024-11-20',
      accountPrefix: `kg${run}`,
    });
    await warehouse.ingestFile({ orgId: org, path, sourceName: 'more.csv' });
    await warehouse.refreshFeatures(org, { labels: [], vdims: [], enrichments: [] }, 'full');
    clearForecastCaches();
    const done = await keepDashboardForecasts(org, { ...keepForecastsDeps(), now: () => NOW });
    // The two widgets, and the three views kept before (the two widgets' and the ad-hoc one).
    expect(done).toEqual({ widgets: 2, views: 3, failed: 0 });
    expect(await keptItems()).toBe(before + 3);

    // The ad-hoc view's next asker reads the answer on the new data, the model's own.
    const { store: counting, seen } = countingStore();
    clearForecastCaches();
    const read = await runExplorer(adHoc, { ...ctx, forecastAnswers: counting });
    expect(seen).toEqual({ gets: 1, hits: 1, puts: 0 });
    clearForecastCaches();
    const computed = await runExplorer(adHoc, { ...ctx, forecastAnswers: null });
    const forecasts = (r: typeof read) =>
      r.queries.flatMap((q) => q.series.map((s) => [s.forecast, s.forecastAccuracy]));
    expect(forecasts(read)).toEqual(forecasts(computed));
    expect(forecasts(read).length).toBe(3);
  }, 180_000);
});
