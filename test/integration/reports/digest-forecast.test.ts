import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { writeFocusCsv } from '../../../infra/local/demo-data/generator';
import { runExplorer } from '../../../shared/domain/queries/engine';
import type { RenderContext } from '../../../shared/domain/reports/render/widget-data';
import { renderWidget } from '../../../shared/domain/reports/render/widgets';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { ReportWidget } from '../../../shared/model/report-schemas';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { DuckDbQueries } from '../../../shared/warehouse/duckdb/queries';
import { setWarehouseQueries } from '../../../shared/warehouse/queries';
import { countingWarehouse } from '../../support/warehouse-calls';
import { type CsvRow, close, num, readCsv } from '../warehouse/support';

/**
 * The DIGEST's month-end forecast line (issue 27) reads the daily history once, not through a
 * second explorer answer: its figures equal the explorer's month-end forecast of the same query
 * (the former path, asked here directly), its actual days are the CSV's rows, and the warehouse
 * reads of a DIGEST are counted through a wrapper around the real DuckDB adapter (no mock).
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const org = `org_dgf_${run}`;
const dir = mkdtempSync(join(tmpdir(), 'digest-forecast-'));
// Data 2024-06-01 … 2024-10-20: LAST_MONTH is September, the month in progress October.
const now = new Date('2024-10-23T08:00:00Z');
let rows: CsvRow[] = [];

/** Calls of each warehouse method since the last `reset`, through the real adapter. */
const calls = new Map<string, number>();
const total = () => [...calls.values()].reduce((a, b) => a + b, 0);

const ctx = (): RenderContext => ({
  orgId: org,
  context: { metricId: 'cost', groupBy: 'service', datePreset: 'LAST_MONTH', currency: 'USD' },
  now,
  timeZone: 'UTC',
});
const digest = v.parse(ReportWidget, { type: 'DIGEST', display: 'summary' });

beforeAll(async () => {
  const path = join(dir, 'gen.csv');
  await writeFocusCsv(path, {
    seed: 27,
    months: ['2024-06', '2024-07', '2024-08', '2024-09', '2024-10'],
    resourcesPerProvider: 3,
    until: '2024-10-20',
    accountPrefix: `dg${run}`,
  });
  rows = readCsv(path);
  await warehouse.ingestFile({ orgId: org, path, sourceName: 'gen.csv' });
  setWarehouseQueries(countingWarehouse(new DuckDbQueries(), calls));
}, 120_000);

afterAll(() => setWarehouseQueries(undefined));

/** The former path: the explorer's month-end forecast of the ungrouped cost (Month bucket, forecastDays). */
async function explorerMonthForecast(dataThrough: string) {
  const end = '2024-10-31';
  const days = Math.round(
    (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${dataThrough}T00:00:00Z`)) / 86_400_000,
  );
  const request = v.parse(ExplorerRequestSchema, {
    period: {
      startDate: '2024-10-01T00:00:00Z',
      endDate: `${end}T00:00:00Z`,
      aggBy: 'Month',
      forecastDays: days,
    },
    queries: [{ type: 'cost', name: 'cost', colorIndex: 0, chartType: 'TABLE', metricId: 'cost' }],
  });
  const res = await runExplorer(request, {
    orgId: org,
    now,
    timeZone: 'UTC',
    currency: 'USD',
    conditions: null,
  });
  const series = res.queries[0]!.series[0]!;
  return { bucket: series.forecast![0]!, method: series.forecastAccuracy!.method };
}

describe('DIGEST month-end forecast', () => {
  it("equals the explorer's month-end forecast, with the month's actual days from the rows", async () => {
    calls.clear();
    const w = await renderWidget(ctx(), digest);
    if (w.type !== 'DIGEST' || !w.forecast) throw new Error('no forecast');
    const digestReads = new Map(calls);
    expect(w.forecast).toMatchObject({ month: '2024-10', dataThrough: w.dataThrough });
    const dataThrough = w.dataThrough!;
    expect(dataThrough).toBe('2024-10-18');

    calls.clear();
    const former = await explorerMonthForecast(dataThrough);
    const formerReads = new Map(calls);
    const t = former.bucket.bucketTotal!;
    for (const [a, b] of [
      [w.forecast.value, t.value],
      [w.forecast.lower80, t.lower80],
      [w.forecast.upper80, t.upper80],
    ] as const)
      if (!close(a, b, 1e-12)) throw new Error(`DIGEST ${a} vs explorer ${b}`);
    expect(w.forecast.method).toBe(former.method);
    // The month's actual part is October's rows through dataThrough.
    const actual = rows
      .filter((r) => {
        const d = String(r.ChargePeriodStart).slice(0, 10);
        return d >= '2024-10-01' && d <= dataThrough;
      })
      .reduce((a, r) => a + num(r.BilledCost), 0);
    if (!close(former.bucket.actual!, actual, 1e-9))
      throw new Error(`actual ${former.bucket.actual} vs ${actual}`);
    expect(w.forecast.value).toBeGreaterThan(actual);

    // Reads: the DIGEST's comparison (period and previous period, grouped) and one daily history
    // read; the former path read the month and then its history in a second explorer answer (and
    // the catalog and the data's version: the identity its forecast is kept under).
    expect(Object.fromEntries(digestReads)).toEqual({ billingInfo: 5, costSeries: 3 });
    expect(Object.fromEntries(formerReads)).toEqual({
      billingInfo: 3,
      catalog: 1,
      costSeries: 2,
      dataVersion: 1,
    });
    process.stdout.write(
      `DIGEST reads ${JSON.stringify(Object.fromEntries(digestReads))}; ` +
        `former forecast call alone ${JSON.stringify(Object.fromEntries(formerReads))}\n`,
    );
  });

  it('DIGESTs of one report asking the same query share the history read', async () => {
    const shared = ctx();
    calls.clear();
    const first = await renderWidget(shared, digest);
    const one = total();
    const history = calls.get('costSeries')!;
    calls.clear();
    const second = await renderWidget(shared, { ...digest, title: 'again' });
    if (first.type !== 'DIGEST' || second.type !== 'DIGEST') throw new Error('not a digest');
    expect(second.forecast).toEqual(first.forecast);
    // The second reads its comparison only: one costSeries fewer, no billing info for the history.
    expect(calls.get('costSeries')).toBe(history - 1);
    expect(total()).toBeLessThan(one);
    // So the comparison alone is these reads; a DIGEST before this change made them plus the
    // former forecast call's (the first test's `formerReads`).
    expect(Object.fromEntries(calls)).toEqual({ billingInfo: 3, costSeries: 2 });
  });
});
