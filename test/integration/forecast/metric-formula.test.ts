import * as v from 'valibot';
import type { Principal } from '../../../shared/auth/principal';
import { createDatasource, pushPoints } from '../../../shared/domain/datasources/service';
import { runExplorer } from '../../../shared/domain/queries/engine';
import type { ExplorerResult, ForecastBucket } from '../../../shared/domain/queries/model';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { writeDailyFocusCsv } from '../../support/daily-focus';
import { queryNamed as only, costQuery as q } from '../../support/explorer';

/**
 * Forecasts of usage-metric, metrics-datasource and formula queries (docs/queries.md, "Forecast")
 * on series built to be pure weekly patterns, which the model reproduces exactly: every expected
 * figure is the generating pattern's, computed here.
 */
const run = Math.random().toString(36).slice(2, 8);
const org = `org_fcm${run}`;
const admin: Principal = { orgId: org, principalId: 'user_admin', kind: 'user', role: 'admin', teamIds: [] };
const DAY = 86_400_000;
const UNIT = `FcUnits${run}`;
// Monday … Sunday. Cost is twice the usage every day: the unit cost is 2.
const COST = [100, 120, 130, 125, 110, 40, 30];
const USAGE = COST.map((c) => c / 2);
const POINTS = [10, 12, 14, 16, 18, 5, 3];
const weekday = (date: string) => (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
const dates = (from: string, n: number) =>
  Array.from({ length: n }, (_, i) => ymd(Date.parse(`${from}T00:00:00Z`) + i * DAY));
// The billing data runs 2024-01-01 … 2024-10-20: dataThrough is 2024-10-19.
const now = new Date('2024-10-25T12:00:00Z');
let dsId = '';

const ask = (period: Record<string, unknown>, queries: unknown[]): Promise<ExplorerResult> =>
  runExplorer(v.parse(ExplorerRequestSchema, { period, queries }), { orgId: org, now });
const near = (actual: number, expected: number) =>
  Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected));
const within = (b: ForecastBucket) =>
  b.lower95 <= b.lower80 + 1e-9 &&
  b.lower80 <= b.value + 1e-9 &&
  b.value <= b.upper80 + 1e-9 &&
  b.upper80 <= b.upper95 + 1e-9;
const metric = (name: string, metricId: string, aggregator = 'SUM') => ({
  type: 'metric',
  name,
  colorIndex: 1,
  chartType: 'LINE',
  metricId,
  aggregator,
});

beforeAll(async () => {
  const file = writeDailyFocusCsv({
    seed: 11,
    accountPrefix: `fcm${run}`,
    from: '2024-01-01',
    to: '2024-10-20',
    series: [
      {
        service: 'Weekly',
        value: (d) => COST[weekday(d)] as number,
        quantity: { unit: UNIT, value: (d) => USAGE[weekday(d)] as number },
      },
    ],
  });
  await new DuckDbWarehouse().ingestFile({ orgId: org, path: file, sourceName: 'focus_daily.csv' });
  const ds = await createDatasource(admin, { name: 'requests', description: '', unit: 'requests' });
  dsId = ds.id;
  const days = dates('2024-03-01', 233); // … 2024-10-19
  for (let i = 0; i < days.length; i += 100)
    await pushPoints(admin, ds.id, {
      points: days
        .slice(i, i + 100)
        .map((d) => ({ timestamp: `${d}T00:00:00Z`, value: POINTS[weekday(d)] as number })),
    });
}, 180_000);

jest.setTimeout(120_000);

describe('forecasts of metric and formula queries', () => {
  it('forecasts a usage metric, a datasource metric and the unit cost formula over them, day by day', async () => {
    const res = await ask(
      { startDate: '2024-10-14T00:00:00Z', endDate: '2024-10-23T00:00:00Z', aggBy: 'Day', forecastDays: 7 },
      [
        q('a'),
        metric('b', UNIT),
        { type: 'formula', name: 'c', colorIndex: 2, chartType: 'LINE', formula: 'a / b' },
        metric('d', dsId),
      ],
    );
    expect(res.dataThrough).toBe('2024-10-19');
    const ahead = dates('2024-10-20', 7);
    const check = (name: string, expected: (d: string) => number) => {
      const [s] = only(res, name).series;
      expect(s?.forecast?.map((b) => b.date)).toEqual(ahead);
      for (const b of s?.forecast ?? []) {
        if (!near(b.value, expected(b.date)))
          throw new Error(`${name} ${b.date}: ${b.value}, expected ${expected(b.date)}`);
        expect(within(b)).toBe(true);
      }
      return s;
    };
    const usage = check('b', (d) => USAGE[weekday(d)] as number);
    expect(usage?.forecastAccuracy?.history.to).toBe('2024-10-19');
    check('a', (d) => COST[weekday(d)] as number);
    const unitCost = check('c', (d) => (COST[weekday(d)] as number) / (USAGE[weekday(d)] as number));
    expect(unitCost?.forecastAccuracy).toBeUndefined(); // its operands carry theirs
    const points = check('d', (d) => POINTS[weekday(d)] as number);
    expect(points?.forecastAccuracy?.method).toBeDefined();
  });

  it('a weekly AVG metric is forecast as the mean of its forecast days, a MAX one as their highest', async () => {
    const res = await ask(
      { startDate: '2024-10-14T00:00:00Z', endDate: '2024-11-03T00:00:00Z', aggBy: 'Week', forecastDays: 14 },
      [metric('avg', dsId, 'AVG'), metric('max', dsId, 'MAX')],
    );
    const ahead = dates('2024-10-20', 14);
    const weekOf = (d: string) => ymd(Date.parse(`${d}T00:00:00Z`) - weekday(d) * DAY);
    const byWeek = new Map<string, number[]>();
    for (const d of ahead)
      byWeek.set(weekOf(d), [...(byWeek.get(weekOf(d)) ?? []), POINTS[weekday(d)] as number]);
    const avg = only(res, 'avg').series[0]?.forecast ?? [];
    const max = only(res, 'max').series[0]?.forecast ?? [];
    expect(avg.map((b) => b.date)).toEqual([...byWeek.keys()]);
    expect(max.map((b) => b.date)).toEqual([...byWeek.keys()]);
    avg.forEach((b, i) => {
      const days = [...byWeek.values()][i] as number[];
      expect(near(b.value, days.reduce((x, y) => x + y, 0) / days.length)).toBe(true);
      expect(within(b)).toBe(true);
    });
    max.forEach((b, i) => {
      expect(near(b.value, Math.max(...([...byWeek.values()][i] as number[])))).toBe(true);
      expect(within(b)).toBe(true);
    });
  });

  it('a formula reading history (timeShift) is not forecast', async () => {
    const res = await ask(
      { startDate: '2024-10-14T00:00:00Z', endDate: '2024-10-23T00:00:00Z', aggBy: 'Day', forecastDays: 3 },
      [
        q('a'),
        { type: 'formula', name: 'f', colorIndex: 2, chartType: 'LINE', formula: 'timeShift(a, 7, DAY)' },
      ],
    );
    expect(only(res, 'a').series[0]?.forecast).toHaveLength(3);
    expect(only(res, 'f').series[0]?.forecast).toBeUndefined();
  });
});
