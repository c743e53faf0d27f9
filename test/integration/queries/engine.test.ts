import * as v from 'valibot';
import { insertScope } from '../../../shared/db/scopes-repo';
import { runExplorer } from '../../../shared/domain/queries/engine';
import type { ExplorerResult } from '../../../shared/domain/queries/model';
import { BadRequestError, DependencyUnavailableError } from '../../../shared/errors';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import type { Scope } from '../../../shared/model/scopes';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import type { WarehouseQueries } from '../../../shared/warehouse/port';
import { setWarehouseQueries } from '../../../shared/warehouse/queries';
import { queryNamed as only, costQuery as q } from '../../support/explorer';
import { type CsvRow, close, ingestGenerated, num, tagsOf } from '../warehouse/support';

/**
 * The engine over DuckDB, checked against sums computed here from the generated CSV rows (never
 * against the engine's own SQL).
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const org = `org_q_${run}`;
let rows: CsvRow[] = [];
// Mid-October 2024: the generated data runs 2024-09-01 … 2024-10-20.
const now = new Date('2024-10-25T12:00:00Z');

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const cost = (r: CsvRow) => num(r.BilledCost);

function request(input: unknown) {
  return v.parse(ExplorerRequestSchema, input);
}

function ask(
  input: unknown,
  extra: Partial<Parameters<typeof runExplorer>[1]> = {},
): Promise<ExplorerResult> {
  return runExplorer(request(input), { orgId: org, now, ...extra });
}

function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

function sum(filter: (r: CsvRow) => boolean, value: (r: CsvRow) => number = cost): number {
  return rows.filter(filter).reduce((a, r) => a + value(r), 0);
}

function expectClose(actual: number | null | undefined, expected: number) {
  if (!close(actual ?? Number.NaN, expected, 1e-9)) throw new Error(`got ${actual}, expected ${expected}`);
}

/** Ten days by day, with three days of weekday-mean forecast after the data's last day (2024-10-19). */
const FORECAST_PERIOD = {
  startDate: '2024-10-14T00:00:00Z',
  endDate: '2024-10-23T00:00:00Z',
  aggBy: 'Day',
  forecastDays: 3,
  forecastMethod: 'weekday-mean',
};

/**
 * The forecast of day `d` by hand: the trailing same-weekday mean of the rows in `keep` over the
 * four weeks through dataThrough (2024-10-19).
 */
function weekdayMean(d: string, keep: (r: CsvRow) => boolean = () => true): number {
  return (
    [7, 14, 21, 28].reduce((acc, n) => {
      const back = new Date(Date.parse(`${d}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
      return acc + sum((r) => day(r) === back && keep(r));
    }, 0) / 4
  );
}

beforeAll(async () => {
  rows = await ingestGenerated(warehouse, org, {
    seed: 7,
    months: ['2024-09', '2024-10'],
    resourcesPerProvider: 4,
    until: '2024-10-21',
    accountPrefix: `q${run}`,
  });
}, 120_000);

afterEach(() => setWarehouseQueries(undefined));

describe('query engine over DuckDB', () => {
  it('answers daily cost with every bucket present, equal to the CSV sums', async () => {
    const res = await ask({
      period: { startDate: '2024-09-28T00:00:00Z', endDate: '2024-10-03T00:00:00Z', aggBy: 'Day' },
      queries: [q('a')],
    });
    expect(res.period).toEqual({ startDate: '2024-09-28', endDate: '2024-10-03', aggBy: 'Day' });
    const [series] = only(res, 'a').series;
    expect(series?.group).toEqual({});
    expect(series?.points.map((p) => p.date)).toEqual(days('2024-09-28', '2024-10-03'));
    for (const p of series?.points ?? [])
      expectClose(
        p.value,
        sum((r) => day(r) === p.date),
      );
    expectClose(
      series?.total ?? null,
      sum((r) => day(r) >= '2024-09-28' && day(r) <= '2024-10-03'),
    );
    expect(only(res, 'a').currency).toBe('USD');
    // Last charge day 2024-10-20, so data is complete through the 19th.
    expect(res.dataThrough).toBe('2024-10-19');
  });

  it('groups by provider with a where clause, keeps the top N and sums the rest into Other', async () => {
    const where = { combinator: 'and', rules: [{ field: 'service', operator: 'notIn', value: ['Tax'] }] };
    const res = await ask({
      period: { startDate: '2024-09-01T00:00:00Z', endDate: '2024-10-20T00:00:00Z', aggBy: 'Month' },
      queries: [q('a', { groupBy: 'provider', whereClause: where })],
      limitOverride: 2,
    });
    const inRange = (r: CsvRow) =>
      day(r) >= '2024-09-01' && day(r) <= '2024-10-20' && r.ServiceName !== 'Tax';
    const totals = new Map<string, number>();
    for (const r of rows.filter(inRange))
      totals.set(String(r.ProviderName), (totals.get(String(r.ProviderName)) ?? 0) + cost(r));
    const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]);
    const top = ranked.slice(0, 2).map(([p]) => p);
    const series = only(res, 'a').series;
    expect(series.filter((s) => !s.other).map((s) => s.group.provider)).toEqual(top);
    for (const s of series) {
      const match = (r: CsvRow) =>
        inRange(r) && (s.other ? !top.includes(String(r.ProviderName)) : r.ProviderName === s.group.provider);
      expect(s.points.map((p) => p.date)).toEqual(['2024-09-01', '2024-10-01']);
      expectClose(
        s.points[0]?.value,
        sum((r) => match(r) && day(r) < '2024-10-01'),
      );
      expectClose(
        s.points[1]?.value,
        sum((r) => match(r) && day(r) >= '2024-10-01'),
      );
    }
    const other = series.find((s) => s.other);
    expect(other?.group).toEqual({ provider: 'Other' });
    expect(other?.points[1]?.partial).toBe(true); // October runs past dataThrough
  });

  it('groups by two dimensions, a tag among them, with null for rows without the tag', async () => {
    const res = await ask({
      period: { startDate: '2024-10-01T00:00:00Z', endDate: '2024-10-07T00:00:00Z', aggBy: 'Period' },
      queries: [q('a', { groupBy: ['provider', 'tag:env'], metricId: 'effective_cost' })],
    });
    const expected = new Map<string, number>();
    for (const r of rows.filter((r) => day(r) >= '2024-10-01' && day(r) <= '2024-10-07')) {
      const k = JSON.stringify({ provider: r.ProviderName, 'tag:env': tagsOf(r).env ?? null });
      expected.set(k, (expected.get(k) ?? 0) + num(r.EffectiveCost));
    }
    const series = only(res, 'a').series;
    expect(series.length).toBe(expected.size);
    expect(series.some((s) => s.group['tag:env'] === null)).toBe(true);
    for (const s of series) {
      expect(s.points.map((p) => p.date)).toEqual(['2024-10-01']);
      expectClose(s.total, expected.get(JSON.stringify(s.group)) ?? Number.NaN);
    }
  });

  it('buckets by ISO week from Monday', async () => {
    const res = await ask({
      period: { startDate: '2024-09-04T00:00:00Z', endDate: '2024-09-22T00:00:00Z', aggBy: 'Week' },
      queries: [q('a')],
    });
    const points = only(res, 'a').series[0]?.points ?? [];
    expect(points.map((p) => p.date)).toEqual(['2024-09-02', '2024-09-09', '2024-09-16']);
    // The first week holds the period's days only (from Wednesday the 4th).
    expectClose(
      points[0]?.value,
      sum((r) => day(r) >= '2024-09-04' && day(r) <= '2024-09-08'),
    );
    expectClose(
      points[2]?.value,
      sum((r) => day(r) >= '2024-09-16' && day(r) <= '2024-09-22'),
    );
  });

  it('answers a usage metric, a formula over cost and usage, and a condition', async () => {
    const unit = rows.find((r) => r.ConsumedUnit)?.ConsumedUnit as string;
    const res = await ask({
      period: { startDate: '2024-09-10T00:00:00Z', endDate: '2024-09-16T00:00:00Z', aggBy: 'Day' },
      queries: [
        q('a'),
        { type: 'metric', name: 'b', colorIndex: 1, chartType: 'LINE', metricId: unit, aggregator: 'SUM' },
        { type: 'formula', name: 'c', colorIndex: 2, chartType: 'LINE', formula: 'a / b' },
        { type: 'condition', name: 'd', colorIndex: 3, chartType: 'LINE', expression: 'a > 0 and b >= 0' },
      ],
    });
    const b = only(res, 'b');
    expect(b.unit).toBe(unit);
    for (const p of b.series[0]?.points ?? [])
      expectClose(
        p.value,
        sum(
          (r) => day(r) === p.date && r.ConsumedUnit === unit,
          (r) => num(r.ConsumedQuantity),
        ),
      );
    const c = only(res, 'c').series[0]?.points ?? [];
    for (const p of c) {
      const usage = sum(
        (r) => day(r) === p.date && r.ConsumedUnit === unit,
        (r) => num(r.ConsumedQuantity),
      );
      expectClose(p.value, sum((r) => day(r) === p.date) / usage);
    }
    // The formula's total is the formula over the operands' totals (unit cost over the period).
    expectClose(only(res, 'c').total, (only(res, 'a').total ?? 0) / (b.total ?? 1));
    expect(only(res, 'd').series[0]?.points.map((p) => p.value)).toEqual(c.map(() => 1));
  });

  it('computes rolling windows, shifts and week-over-week expressions from history before the period', async () => {
    const res = await ask({
      period: { startDate: '2024-09-20T00:00:00Z', endDate: '2024-09-25T00:00:00Z', aggBy: 'Day' },
      queries: [
        q('a', { visible: false }),
        q('r', { rollingAggregation: { aggregator: 'SUM', window: { relativeDays: 3 } } }),
        q('s', { shiftAmount: 1, shiftUnit: 'WEEK' }),
        q('m', { rollingAggregation: { aggregator: 'SUM', window: { preset: 'MONTH' } } }),
        {
          type: 'formula',
          name: 'w',
          colorIndex: 2,
          chartType: 'LINE',
          formula: 'timeShift(rollingSum(a, 7, DAY), 7, DAY)',
        },
      ],
    });
    expect(res.queries.map((x) => x.name)).toEqual(['r', 's', 'm', 'w']); // hidden `a` is computed, not shown
    const shift = (d: string, n: number) =>
      new Date(Date.parse(`${d}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
    for (const p of only(res, 'r').series[0]?.points ?? [])
      expectClose(
        p.value,
        sum((r) => day(r) > shift(p.date, 3) && day(r) <= p.date),
      );
    for (const p of only(res, 's').series[0]?.points ?? [])
      expectClose(
        p.value,
        sum((r) => day(r) === shift(p.date, 7)),
      );
    for (const p of only(res, 'm').series[0]?.points ?? [])
      expectClose(
        p.value,
        sum((r) => day(r) >= '2024-09-01' && day(r) <= p.date),
      );
    for (const p of only(res, 'w').series[0]?.points ?? [])
      expectClose(
        p.value,
        sum((r) => day(r) > shift(p.date, 14) && day(r) <= shift(p.date, 7)),
      );
  });

  it('compares with the preceding period: explicit dates, and preset-aware', async () => {
    const comparisonPeriod = { startDate: null, endDate: null, enabled: true, chartType: 'TABLE' };
    const res = await ask({
      period: {
        startDate: '2024-10-08T00:00:00Z',
        endDate: '2024-10-14T00:00:00Z',
        aggBy: 'Day',
        comparisonPeriod,
      },
      queries: [q('a')],
    });
    expect(res.comparison?.period).toEqual({ startDate: '2024-10-01', endDate: '2024-10-07', aggBy: 'Day' });
    expectClose(
      res.comparison?.queries[0]?.total,
      sum((r) => day(r) >= '2024-10-01' && day(r) <= '2024-10-07'),
    );
    const preset = await ask({
      period: {
        datePreset: 'LAST_MONTH',
        aggBy: 'Month',
        comparisonPeriod,
      },
      queries: [q('a')],
    });
    expect(preset.period).toEqual({ startDate: '2024-09-01', endDate: '2024-09-30', aggBy: 'Month' });
    expect(preset.comparison?.period).toEqual({
      startDate: '2024-08-01',
      endDate: '2024-08-31',
      aggBy: 'Month',
    });
    expectClose(
      preset.queries[0]?.total,
      sum((r) => day(r) < '2024-10-01'),
    );
    expect(preset.comparison?.queries[0]?.total).toBe(0);
  });

  it('adds forecast points after dataThrough, apart from the actuals', async () => {
    const res = await ask({ period: FORECAST_PERIOD, queries: [q('a')] });
    const s = only(res, 'a').series[0]!;
    expect(s.forecastAccuracy?.method).toBe('weekday-mean');
    for (const f of s.forecast ?? []) expect(f.lower80 <= f.value && f.value <= f.upper80).toBe(true);
    expect(s.forecast?.map((f) => f.date)).toEqual(['2024-10-20', '2024-10-21', '2024-10-22']);
    for (const f of s.forecast ?? []) expectClose(f.value, weekdayMean(f.date));
    expect(s.points.filter((p) => p.partial).map((p) => p.date)).toEqual(days('2024-10-20', '2024-10-23'));
    expectClose(
      s.total,
      sum((r) => day(r) >= '2024-10-14' && day(r) <= '2024-10-23'),
    );
  });

  it('forecasts each shown group and Other from their own history, the same when asked again', async () => {
    const ask2 = () =>
      ask({
        period: FORECAST_PERIOD,
        queries: [q('a', { groupBy: 'service' })],
        limitOverride: 2,
      });
    const first = await ask2();
    const series = only(first, 'a').series;
    const shown = series.filter((s) => !s.other).map((s) => String(s.group.service));
    expect(shown).toHaveLength(2);
    expect(series.some((s) => s.other)).toBe(true);
    // Per group: the weekday mean of the group's rows only.
    const check = (answer: ExplorerResult) => {
      for (const s of only(answer, 'a').series) {
        const keep = s.other
          ? (r: CsvRow) => !shown.includes(String(r.ServiceName))
          : (r: CsvRow) => r.ServiceName === s.group.service;
        expect(s.forecast?.map((f) => f.date)).toEqual(['2024-10-20', '2024-10-21', '2024-10-22']);
        for (const f of s.forecast ?? []) expectClose(f.value, weekdayMean(f.date, keep));
      }
    };
    check(first);
    check(await ask2());
  });

  it('resolves presets in the organisation timezone', async () => {
    // 2024-10-25T12:00Z is already the 26th in Auckland (UTC+13).
    const res = await ask(
      { period: { datePreset: 'TRAILING_1_DAYS', aggBy: 'Day' }, queries: [q('a')] },
      {
        timeZone: 'Pacific/Auckland',
      },
    );
    expect(res.period.startDate).toBe('2024-10-26');
    const utc = await ask({ period: { datePreset: 'TRAILING_1_DAYS', aggBy: 'Day' }, queries: [q('a')] });
    expect(utc.period.startDate).toBe('2024-10-25');
  });

  it('refuses bad requests with a 400 naming the problem', async () => {
    const formula = (f: string, extra: unknown[] = []) =>
      ask({
        period: { datePreset: 'LAST_MONTH', aggBy: 'Day' },
        queries: [
          q('a'),
          { type: 'formula', name: 'f', colorIndex: 0, chartType: 'LINE', formula: f },
          ...extra,
        ],
      });
    await expect(formula('a + foo')).rejects.toThrow(
      new BadRequestError("query f: unknown query 'foo' at 4"),
    );
    await expect(
      formula('g + 1', [{ type: 'formula', name: 'g', colorIndex: 0, chartType: 'LINE', formula: 'f * 2' }]),
    ).rejects.toThrow(/cycle: f -> g -> f/);
    await expect(
      ask({ period: { datePreset: 'LAST_MONTH', aggBy: 'Day' }, queries: [q('a', { groupBy: 'nope' })] }),
    ).rejects.toThrow('Unknown dimension "nope"');
    await expect(
      ask({ period: { datePreset: 'LAST_4_YEARS', aggBy: 'Hour' }, queries: [q('a')] }),
    ).rejects.toThrow(/more than 2000 hour buckets/);
  });

  describe('scopes', () => {
    const where = (field: string, operator: string, value: string[]) => ({
      combinator: 'and',
      rules: [{ field, operator, value }],
    });
    async function scope(orgId: string, filters: Record<string, unknown> | null): Promise<string> {
      const id = `scope_${Math.random().toString(36).slice(2, 12)}`;
      const at = new Date().toISOString();
      const record: Scope = {
        id,
        organizationId: orgId,
        name: id,
        description: '',
        teamIds: [],
        filters,
        createdById: 'usr_test',
        createdAt: at,
        updatedAt: at,
        version: 1,
      };
      await insertScope(record);
      return id;
    }
    const period = { startDate: '2024-09-10T00:00:00Z', endDate: '2024-09-16T00:00:00Z', aggBy: 'Day' };
    const inPeriod = (r: CsvRow) => day(r) >= '2024-09-10' && day(r) <= '2024-09-16';
    const providers = () => [...new Set(rows.map((r) => String(r.ProviderName)))].sort();

    it("restricts every cost query by the request scope's filters, whatever extendDashboardConditions", async () => {
      const [first, second] = providers();
      expect(second).toBeDefined();
      const scopeId = await scope(org, where('provider', 'in', [first!]));
      const res = await ask({
        period,
        scopeId,
        queries: [
          q('a'),
          q('b', { extendDashboardConditions: false, groupBy: 'provider' }),
          q('c', { whereClause: where('provider', 'in', [second!]) }),
        ],
      });
      const scoped = (r: CsvRow) => inPeriod(r) && r.ProviderName === first;
      for (const p of only(res, 'a').series[0]?.points ?? [])
        expectClose(
          p.value,
          sum((r) => scoped(r) && day(r) === p.date),
        );
      expectClose(only(res, 'a').total, sum(scoped));
      expect(sum(scoped)).not.toBeCloseTo(sum(inPeriod), 2);
      // Grouped: only the scope's provider is left.
      expect(only(res, 'b').series.map((s) => s.group)).toEqual([{ provider: first }]);
      expectClose(only(res, 'b').total, sum(scoped));
      // The query's own where clause and the scope are ANDed: another provider leaves nothing.
      expect(only(res, 'c').series[0]?.points.every((p) => p.value === 0)).toBe(true);
    });

    it('ANDs the dashboard conditions, the dashboard scope and the request scope; usage metrics are scoped too', async () => {
      const unit = rows.find((r) => r.ConsumedUnit)?.ConsumedUnit as string;
      const services = [...new Set(rows.filter(inPeriod).map((r) => String(r.ServiceName)))].sort();
      const [first] = providers();
      const requestScope = await scope(org, where('provider', 'in', [first!]));
      const dashboardScope = await scope(org, where('service', 'notIn', [services[0]!]));
      const conditions = where('region', 'notIn', ['nowhere']) as never;
      const res = await ask(
        {
          period,
          scopeId: requestScope,
          queries: [
            q('a'),
            {
              type: 'metric',
              name: 'u',
              colorIndex: 1,
              chartType: 'LINE',
              metricId: unit,
              aggregator: 'SUM',
            },
          ],
        },
        { scopeIds: [dashboardScope, null], conditions },
      );
      const scoped = (r: CsvRow) => inPeriod(r) && r.ProviderName === first && r.ServiceName !== services[0];
      expectClose(only(res, 'a').total, sum(scoped));
      expectClose(
        only(res, 'u').total,
        sum(
          (r) => scoped(r) && r.ConsumedUnit === unit,
          (r) => num(r.ConsumedQuantity),
        ),
      );
    });

    it('applies nothing for a scope without filters', async () => {
      const open = await scope(org, null);
      const empty = await scope(org, {});
      const res = await ask({ period, queries: [q('a')] }, { scopeIds: [open, empty] });
      expectClose(only(res, 'a').total, sum(inPeriod));
    });

    it("refuses an unknown scope, another organisation's, and filters that are not a where clause, before reading the warehouse", async () => {
      const reads: string[] = [];
      const theirs = await scope(`org_other_${run}`, where('provider', 'in', ['AWS']));
      const bad = await scope(org, { provider: 'AWS' });
      const unknownDimension = await scope(org, where('nope', 'in', ['x']));
      setWarehouseQueries(
        new Proxy(warehouse, {
          get(target, prop, receiver) {
            const value = Reflect.get(target, prop, receiver);
            if (typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              reads.push(String(prop));
              return value.apply(target, args);
            };
          },
        }) as unknown as WarehouseQueries,
      );
      await expect(ask({ period, scopeId: 'scope_missing', queries: [q('a')] })).rejects.toThrow(
        new BadRequestError('scopeId: unknown scope scope_missing'),
      );
      await expect(ask({ period, scopeId: theirs, queries: [q('a')] })).rejects.toThrow(
        new BadRequestError(`scopeId: unknown scope ${theirs}`),
      );
      await expect(ask({ period, queries: [q('a')] }, { scopeIds: [theirs] })).rejects.toThrow(
        `unknown scope ${theirs}`,
      );
      expect(reads).toEqual([]);
      await expect(ask({ period, scopeId: bad, queries: [q('a')] })).rejects.toThrow(
        `The filters of scope ${bad} are not a where clause`,
      );
      await expect(ask({ period, scopeId: unknownDimension, queries: [q('a')] })).rejects.toThrow(
        'Unknown dimension "nope"',
      );
    });
  });

  it('answers 503 when the warehouse fails', async () => {
    const down = new Error('connect ECONNREFUSED');
    setWarehouseQueries({
      kind: 'duckdb',
      billingInfo: () => Promise.reject(down),
    } as unknown as WarehouseQueries);
    await expect(
      ask({ period: { datePreset: 'LAST_MONTH', aggBy: 'Day' }, queries: [q('a')] }),
    ).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
