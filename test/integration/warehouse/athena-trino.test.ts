import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eligibleClause } from '../../../shared/domain/commitments/eligibility';
import type { FeatureModel } from '../../../shared/model/view-features';
import type { WhereClause } from '../../../shared/model/where-clause';
import { AthenaQueries, AthenaWarehouse } from '../../../shared/warehouse/athena/adapter';
import { contractCommitmentKey, rangeMonths } from '../../../shared/warehouse/athena/sql';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { query, withConnection } from '../../../shared/warehouse/duckdb/database';
import { sourceObjectName } from '../../../shared/warehouse/ingest/sources';
import { ObjectChangedError, uploadObject } from '../../../shared/warehouse/object-store';
import type { WarehousePort } from '../../../shared/warehouse/port';
import { MissingRateError } from '../../../shared/warehouse/sql/conversion';
import type { CostSeriesQuery, SeriesRow, UsageSeriesQuery } from '../../../shared/warehouse/warehouse-query';
import { AthenaEmulator } from '../../support/athena-emulator';
import { CUR2_HEADER, csvText, curCommitmentLines } from '../../support/commitment-exports';
import { assertPartitioned, assertTrino } from '../../support/trino';
import { entry } from '../../unit/enrichments/fixtures';
import { csv, DEPRECATED_IN_1_3, underContract } from './focus-rows';
import {
  azureDaily,
  billingSourceSamples,
  type CsvRow,
  CUR_PAYER,
  CUR_SAMPLE,
  curDaily,
  expectSums,
  FOCUS_SAMPLE,
  novemberByProvider,
  num,
  parseCsv,
  prefixed,
  readCsv,
  tagsOf,
} from './support';

/**
 * Every statement of the Athena adapter meets a Trino grammar, and its answers are compared with
 * the DuckDB adapter's on the same data and request.
 *
 * The Athena adapter runs unchanged down to its AWS SDK client; the emulator (test/support/
 * athena-emulator.ts) records each statement it starts, parses it with dt-sql-parser's Trino
 * grammar (and checks its functions against Trino's), and runs it on DuckDB over the Parquet
 * objects the adapter's own ingestion wrote, through a small documented shim. Each statement
 * must also name the organisation (and, for a window, its billing months) on every read of the
 * billing table. A second organisation's rows sit in the same emulated table, so a missing org
 * predicate shows up as doubled figures, not only as a failed text check.
 *
 * New statements are covered without new assertions here: anything routed through the adapter's
 * runner is recorded and checked, and the last test fails when the adapter grows a public method
 * this file does not drive.
 */
const table = { database: 'cost_management_test', table: 'focus_billing' };
const tableRef = `"${table.database}"."${table.table}"`;
const run = Date.now().toString(36);
const org = `org_trino_${run}`;
const other = `org_trino_other_${run}`;
const SEPTEMBER = { start: '2024-09-01', end: '2024-10-01' };

let emulator: AthenaEmulator;
const duck = new DuckDbWarehouse();
const called = new Set<string>();
let athena: AthenaWarehouse;

/** The adapter behind a proxy that notes every method the tests call. */
function tracked(target: AthenaWarehouse): AthenaWarehouse {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        called.add(prop);
        return value.apply(t, args);
      };
    },
  });
}

/** Runs `call` on the Athena adapter and checks every statement it started. */
async function checked<T>(
  call: (w: WarehousePort) => Promise<T>,
  partitions: { months?: string[]; within?: string[] } = {},
): Promise<{ result: T; statements: string[] }> {
  const mark = emulator.statements.length;
  const result = await call(athena);
  const statements = emulator.since(mark).map((s) => s.sql);
  for (const sql of statements) {
    assertTrino(sql);
    assertPartitioned(sql, { tableRef, orgId: org, ...partitions });
  }
  return { result, statements };
}

const sortRows = (rows: SeriesRow[]) =>
  [...rows].sort((a, b) =>
    `${a.period}|${JSON.stringify(a.group)}`.localeCompare(`${b.period}|${JSON.stringify(b.group)}`),
  );

function expectSameSeries(athenaRows: SeriesRow[], duckRows: SeriesRow[]): void {
  const a = sortRows(athenaRows);
  const d = sortRows(duckRows);
  expect(a.map((r) => [r.period, r.group])).toEqual(d.map((r) => [r.period, r.group]));
  a.forEach((r, i) => {
    expect(r.value).toBeCloseTo(d[i]?.value ?? Number.NaN, 6);
  });
}

/**
 * The cost series of `q` from Athena (Trino SQL reading September's partitions only), checked
 * equal to DuckDB's; answers Athena's call as `checked` does.
 */
async function septemberSeries(q: CostSeriesQuery) {
  const athenaSeries = await checked((w) => w.costSeries(q), { months: ['2024-09'] });
  expectSameSeries(athenaSeries.result, await duck.costSeries(q));
  return athenaSeries;
}

/** One rule of each operator, nested groups, quotes in values. */
const everyOperator: WhereClause = {
  combinator: 'and',
  rules: [
    { field: 'provider', operator: 'in', value: ['AWS', 'Microsoft', "O'Brien Cloud"] },
    { field: 'region', operator: 'notIn', value: ['eu-central-1'] },
    {
      combinator: 'or',
      rules: [
        { field: 'service', operator: 'contains', value: ['Compute', 'Storage'] },
        { field: 'service', operator: 'beginsWith', value: ['Elastic'] },
        { field: 'service', operator: 'endsWith', value: ['Cloud'] },
        {
          combinator: 'and',
          rules: [
            { field: 'tag:environment', operator: '=', value: ['prod'] },
            { field: 'sub_account', operator: 'null', value: [] },
          ],
        },
      ],
    },
    { field: 'service', operator: 'doesNotContain', value: ['Queue'] },
    { field: 'service', operator: 'doesNotBeginWith', value: ['AmazonCloudWatch'] },
    { field: 'service', operator: 'doesNotEndWith', value: ['Balancing'] },
    { field: 'region', operator: '!=', value: ['ap-south-1'] },
    { field: 'charge_category', operator: 'notNull', value: [] },
  ],
};

/** `answer` fails with a MissingRateError for USD to EUR on 2024-09-14 (a day left without a rate). */
async function expectNoRateOn14th(answer: Promise<unknown>): Promise<void> {
  const missing = await answer.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(missing).toBeInstanceOf(MissingRateError);
  expect((missing as MissingRateError).body().error).toMatch(
    /^No exchange rate for USD to EUR on 2024-09-14 /,
  );
}

const model: FeatureModel = {
  labels: [
    {
      name: 'env',
      columnsMerged: [{ name: 'environment', type: 'label' }],
      maps: [{ value: 'dev', to: 'development' }],
    },
    {
      name: 'app',
      columnsMerged: [
        { name: 'application', type: 'tag' },
        { name: 'service', type: 'dimension' },
      ],
      maps: [{ value: "it's", to: 'quoted' }],
    },
  ],
  vdims: [
    {
      id: 'v1',
      name: 'stage',
      rules: [
        {
          value: 'non-prod',
          whereClause: {
            combinator: 'or',
            rules: [
              { field: 'env', operator: 'in', value: ['development', 'test'] },
              {
                combinator: 'and',
                rules: [
                  { field: 'cost_center', operator: 'beginsWith', value: ['CC-'] },
                  { field: 'env', operator: 'null', value: [] },
                ],
              },
            ],
          },
        },
        {
          value: 'everything-else-aws',
          whereClause: { combinator: 'and', rules: [{ field: 'provider', operator: '=', value: ['AWS'] }] },
        },
      ],
      defaultValue: 'other',
    },
    {
      id: 'v2',
      name: 'filtered',
      rules: [{ value: 'matched', whereClause: everyOperator }],
      defaultValue: null,
    },
  ],
  enrichments: [
    {
      name: 'cc',
      keyField: 'SubAccountId',
      priority: 0,
      conditions: 'input.ServiceName.startsWith("Amazon") && input.BilledCost > 0.01',
      targetColumns: [{ name: 'cost_center', mode: 'merge' }],
      entries: [
        entry('11353890204', { cost_center: 'CC-1' }),
        entry('18938484842', { cost_center: "CC-2 'north'" }),
      ],
    },
    {
      name: 'by_region',
      keyField: 'RegionId',
      priority: 1,
      targetColumns: [
        { name: 'cost_center', mode: 'overwrite' },
        { name: 'owner', mode: 'merge' },
      ],
      entries: [entry('us-west-2', { cost_center: 'CC-W', owner: 'west' })],
    },
    {
      name: 'numeric_key',
      keyField: 'BilledCost',
      priority: 2,
      targetColumns: [{ name: 'size', mode: 'merge' }],
      entries: [entry('1', { size: 'one' })],
    },
  ],
};

beforeAll(async () => {
  emulator = await AthenaEmulator.start(table);
  athena = tracked(new AthenaWarehouse({ runner: emulator.runner(), table, bucket: 'billing-bucket' }));
  for (const orgId of [org, other])
    await athena.ingestFile({ orgId, path: FOCUS_SAMPLE, sourceName: 'focus_sample.csv' });
  await duck.ingestFile({ orgId: org, path: FOCUS_SAMPLE, sourceName: 'focus_sample.csv' });
});

afterAll(() => emulator?.restore());

describe('Athena statements meet Trino and agree with DuckDB', () => {
  it('ingestion starts no Athena statement and writes one object per org, month and billing source', () => {
    expect(emulator.statements).toEqual([]);
    // The sources of the raw rows: (provider, billing account) per billing month.
    const sources = new Set(
      readCsv(FOCUS_SAMPLE).map(
        (r) => `${r.BillingPeriodStart?.slice(0, 7)}|${r.ProviderName ?? ''}|${r.BillingAccountId ?? ''}`,
      ),
    );
    expect(sources.size).toBeGreaterThan(2);
    expect([...emulator.objects.keys()].sort()).toEqual(
      [org, other]
        .flatMap((o) =>
          [...sources].map((key) => {
            const [month, provider, account] = key.split('|') as [string, string, string];
            return `curated/org_id=${o}/billing_month=${month}/${sourceObjectName({ provider, account })}`;
          }),
        )
        .sort(),
    );
    for (const key of emulator.objects.keys()) expect(key).toMatch(/\/source-[0-9a-f]{32}\.parquet$/);
  });

  it('billing months and usage metrics', async () => {
    const months = await checked((w) => w.billingMonths(org));
    expect(months.result).toEqual(await duck.billingMonths(org));
    const metrics = await checked((w) => w.usageMetrics(org));
    expect(metrics.result).toEqual(await duck.usageMetrics(org));
  });

  it('cost series before any refresh, with every operator, against sums from the raw rows', async () => {
    const q: CostSeriesQuery = {
      orgId: org,
      metricId: 'cost',
      groupBy: 'provider',
      granularity: 'Month',
      ...SEPTEMBER,
    };
    const { result, statements } = await checked((w) => w.costSeries(q), {
      months: ['2024-09', '2024-10'],
      within: rangeMonths(SEPTEMBER.start, SEPTEMBER.end),
    });
    expect(statements).toHaveLength(1);
    expectSameSeries(result, await duck.costSeries(q));
    // The row of 30 September billed in October counts in September (the month slack).
    const raw = new Map<string, number>();
    for (const r of readCsv(FOCUS_SAMPLE).filter((r) => r.ChargePeriodStart?.startsWith('2024-09')))
      raw.set(r.ProviderName ?? '', (raw.get(r.ProviderName ?? '') ?? 0) + num(r.BilledCost));
    expect(Object.fromEntries(result.map((r) => [r.group.provider, r.value]))).toEqual(
      Object.fromEntries([...raw].map(([k, v]) => [k, expect.closeTo(v, 6)])),
    );

    const filtered: CostSeriesQuery = {
      ...q,
      metricId: 'amortized_cost',
      groupBy: ['service', 'tag:environment'],
      granularity: 'Week',
      whereClause: everyOperator,
    };
    const f = await checked((w) => w.costSeries(filtered), { months: ['2024-09'] });
    expect(f.result.length).toBeGreaterThan(3);
    expectSameSeries(f.result, await duck.costSeries(filtered));

    // Several ungrouped metrics over the same rows (the engine's `a / b`): one list per metric.
    const many = { orgId: org, granularity: 'Day' as const, ...SEPTEMBER };
    const m = await checked((w) => w.costSeriesMany(many, ['cost', 'list_cost']), { months: ['2024-09'] });
    const dm = await duck.costSeriesMany(many, ['cost', 'list_cost']);
    expect(m.result).toHaveLength(2);
    m.result.forEach((rows, i) => {
      expectSameSeries(rows, dm[i] ?? []);
    });
    expectSameSeries(dm[1] ?? [], await duck.costSeries({ ...many, metricId: 'list_cost' }));
    const septemberCost = [...raw.values()].reduce((acc, x) => acc + x, 0);
    expect((m.result[0] ?? []).reduce((acc, r) => acc + r.value, 0)).toBeCloseTo(septemberCost, 6);

    const info = await checked((w) => w.billingInfo(org, '2024-08'));
    expect(info.statements).toHaveLength(1);
    expect(info.result).toEqual(await duck.billingInfo(org, '2024-08'));
    expect(info.result.lastChargeDay).toMatch(/^2024-\d{2}-\d{2}$/);
  });

  it("converted cost series: each row at its day's factor, as DuckDB converts them, and a missing day is the 422", async () => {
    // Factors made up here, one per September day (and 1 October); every sample row is in USD.
    const days = Array.from({ length: 31 }, (_, i) =>
      new Date(Date.UTC(2024, 8, 1 + i)).toISOString().slice(0, 10),
    );
    const factorOf = (day: string) => 0.9 + Number(day.slice(8, 10)) / 1000;
    const conversion = {
      target: 'EUR',
      from: '2024-09-01',
      factors: days.map((day) => ({ currency: 'USD', day, factor: factorOf(day) })),
    };
    const raw = readCsv(FOCUS_SAMPLE).filter((r) => r.ChargePeriodStart?.startsWith('2024-09'));
    expect(new Set(raw.map((r) => r.BillingCurrency))).toEqual(new Set(['USD']));
    for (const granularity of ['Day', 'Week', 'Period'] as const) {
      const q: CostSeriesQuery = {
        orgId: org,
        metricId: 'cost',
        groupBy: 'provider',
        granularity,
        ...SEPTEMBER,
        conversion,
      };
      const { result } = await checked((w) => w.costSeries(q), { months: ['2024-09'] });
      // DuckDB takes its one-currency path here (no currency column); Athena always groups by it.
      expectSameSeries(result, await duck.costSeries(q));
      const expected = new Map<string, number>();
      for (const r of raw) {
        const p = r.ProviderName ?? '';
        expected.set(
          p,
          (expected.get(p) ?? 0) + num(r.BilledCost) * factorOf(String(r.ChargePeriodStart).slice(0, 10)),
        );
      }
      const totals = new Map<string, number>();
      for (const r of result)
        totals.set(r.group.provider ?? '', (totals.get(r.group.provider ?? '') ?? 0) + r.value);
      expect(Object.fromEntries(totals)).toEqual(
        Object.fromEntries([...expected].map(([k, v]) => [k, expect.closeTo(v, 6)])),
      );
    }
    const gap = { ...conversion, factors: conversion.factors.filter((f) => f.day !== '2024-09-14') };
    await expectNoRateOn14th(
      athena.costSeries({
        orgId: org,
        metricId: 'cost',
        groupBy: null,
        granularity: 'Month',
        ...SEPTEMBER,
        conversion: gap,
      }),
    );
  });

  it('a full refresh: labels, enrichments with conditions, virtual dimensions; then series over them', async () => {
    const a = await checked((w) => w.refreshFeatures(org, model, 'full'));
    const d = await duck.refreshFeatures(org, model, 'full');
    expect(a.statements.length).toBeGreaterThan(0); // the condition inputs of `cc`
    expect(a.result.dimensions).toEqual(d.dimensions);
    expect([...a.result.warnings].sort()).toEqual([...d.warnings].sort());
    expect(a.result.warnings).toContain(
      'enrichment numeric_key skipped: keyField BilledCost is not a text FOCUS column',
    );
    expect(await athena.catalog(org)).toMatchObject({ dimensions: d.dimensions, mode: 'full' });

    for (const [groupBy, granularity] of [
      [['env', 'stage'], 'Day'],
      [['cost_center', 'owner', 'app'], 'Month'],
      ['filtered', 'Week'],
    ] as const) {
      const q: CostSeriesQuery = {
        orgId: org,
        metricId: 'effective_cost',
        groupBy: [...([] as string[]).concat(groupBy)],
        granularity,
        start: '2024-09-10',
        end: '2024-10-01T00:00:00Z',
        whereClause: {
          combinator: 'or',
          rules: [
            { field: 'stage', operator: '!=', value: ['other'] },
            { field: 'owner', operator: 'notNull', value: [] },
          ],
        },
      };
      const s = await septemberSeries(q);
      expect(s.result.length).toBeGreaterThan(0);
    }
    const usage: UsageSeriesQuery = {
      orgId: org,
      consumedUnit: 'GB',
      groupBy: 'cost_center',
      granularity: 'Day',
      ...SEPTEMBER,
    };
    const u = await checked((w) => w.usageSeries(usage), { months: ['2024-09'] });
    expectSameSeries(u.result, await duck.usageSeries(usage));
  });

  it('a light refresh replaces only the virtual dimensions', async () => {
    const light: FeatureModel = {
      ...model,
      vdims: [{ ...(model.vdims[0] as FeatureModel['vdims'][number]), defaultValue: 'rest' }],
    };
    const a = await checked((w) => w.refreshFeatures(org, light, 'light'));
    const d = await duck.refreshFeatures(org, light, 'light');
    expect(a.statements).toEqual([]);
    expect(a.result.dimensions).toEqual(d.dimensions);
    const q: CostSeriesQuery = {
      orgId: org,
      metricId: 'cost',
      groupBy: 'stage',
      granularity: 'Month',
      ...SEPTEMBER,
    };
    const s = await septemberSeries(q);
    expect(s.result.map((r) => r.group.stage)).toContain('rest');
  });

  it('candidate aggregates and dimension values over a window of months', async () => {
    const months = ['2024-09', '2024-10'];
    const c = await checked((w) => w.candidateAggregates(org, months, 3), { months, within: months });
    expect(c.statements).toHaveLength(5);
    const dc = await duck.candidateAggregates(org, months, 3);
    expect(c.result.months).toEqual(dc.months.map((m) => ({ ...m, cost: expect.closeTo(m.cost, 6) })));
    expect(c.result.keys).toEqual(dc.keys.map((k) => ({ ...k, cost: expect.closeTo(k.cost, 6) })));
    expect(c.result.keyMonths).toEqual(dc.keyMonths.map((k) => ({ ...k, cost: expect.closeTo(k.cost, 6) })));
    expect(c.result.keyValues).toEqual(dc.keyValues.map((k) => ({ ...k, cost: expect.closeTo(k.cost, 6) })));

    const dims = [
      'provider',
      'tag:environment',
      'env',
      'stage',
      'cost_center',
      'owner',
      'x_unknown_col',
      'nope',
    ];
    const v = await checked((w) => w.dimensionValues(org, ['2024-09'], dims, 4), {
      months: ['2024-09'],
      within: ['2024-09'],
    });
    const dv = await duck.dimensionValues(org, ['2024-09'], dims, 4);
    expect(v.result.total).toBeCloseTo(dv.total, 6);
    expect(v.result.skipped).toEqual(dv.skipped);
    expect(v.result.values).toEqual(dv.values.map((x) => ({ ...x, cost: expect.closeTo(x.cost, 6) })));
  });

  it("converted candidate aggregates and dimension values: each row at its charge day's factor, as DuckDB, and a missing day fails", async () => {
    // Factors made up here for August to October 2024 (the window widened a month each way).
    const days = Array.from({ length: 92 }, (_, i) =>
      new Date(Date.UTC(2024, 7, 1 + i)).toISOString().slice(0, 10),
    );
    const factorOf = (day: string) => 0.8 + Number(day.slice(5, 7)) / 100 + Number(day.slice(8, 10)) / 1000;
    const conversion = {
      target: 'EUR',
      from: '2024-08-01',
      factors: days.map((day) => ({ currency: 'USD', day, factor: factorOf(day) })),
    };
    const months = ['2024-09', '2024-10'];
    const c = await checked((w) => w.candidateAggregates(org, months, 3, conversion), {
      months,
      within: months,
    });
    const dc = await duck.candidateAggregates(org, months, 3, conversion);
    expect(c.result.months).toEqual(dc.months.map((m) => ({ ...m, cost: expect.closeTo(m.cost, 6) })));
    expect(c.result.keys).toEqual(dc.keys.map((k) => ({ ...k, cost: expect.closeTo(k.cost, 6) })));
    expect(c.result.keyValues).toEqual(dc.keyValues.map((k) => ({ ...k, cost: expect.closeTo(k.cost, 6) })));
    const raw = readCsv(FOCUS_SAMPLE);
    const converted = (list: typeof raw) =>
      list.reduce((a, r) => a + num(r.BilledCost) * factorOf(String(r.ChargePeriodStart).slice(0, 10)), 0);
    const total = c.result.months.reduce((a, m) => a + m.cost, 0);
    expect(total).toBeCloseTo(
      converted(raw.filter((r) => months.includes(String(r.BillingPeriodStart).slice(0, 7)))),
      6,
    );

    const v = await checked((w) => w.dimensionValues(org, ['2024-09'], ['provider'], 4, conversion), {
      months: ['2024-09'],
      within: ['2024-09'],
    });
    const dv = await duck.dimensionValues(org, ['2024-09'], ['provider'], 4, conversion);
    expect(v.result.total).toBeCloseTo(dv.total, 6);
    expect(v.result.values).toEqual(dv.values.map((x) => ({ ...x, cost: expect.closeTo(x.cost, 6) })));

    const gap = { ...conversion, factors: conversion.factors.filter((f) => f.day !== '2024-09-14') };
    for (const w of [athena, duck] as WarehousePort[])
      await expectNoRateOn14th(w.candidateAggregates(org, months, 3, gap));
  });

  it('tag keys as exported: " org" and "org" apart, odd keys bound safely, a label merging both; Athena = DuckDB = raw rows', async () => {
    const september = readCsv(FOCUS_SAMPLE).filter((r) => r.ChargePeriodStart?.startsWith('2024-09'));
    const rawBy = (value: (r: CsvRow) => string | undefined) => {
      const out = new Map<string, number>();
      for (const r of september) {
        const v = value(r);
        if (v !== undefined) out.set(v, (out.get(v) ?? 0) + num(r.BilledCost));
      }
      return out;
    };
    const byGroup = (rows: SeriesRow[], field: string) => {
      const out = new Map<string, number>();
      for (const r of rows) {
        const v = r.group[field];
        // Rows without the key form the group '' (no value).
        if (v !== null && v !== undefined && v !== '') out.set(v, (out.get(v) ?? 0) + r.value);
      }
      return out;
    };
    const expectRaw = (actual: Map<string, number>, expected: Map<string, number>) => {
      expect(Object.fromEntries(actual)).toEqual(
        Object.fromEntries([...expected].map(([k, v]) => [k, expect.closeTo(v, 6)])),
      );
    };
    for (const key of ['org', ' org']) {
      const q: CostSeriesQuery = {
        orgId: org,
        metricId: 'cost',
        groupBy: `tag:${key}`,
        granularity: 'Month',
        ...SEPTEMBER,
      };
      const a = await septemberSeries(q);
      expectRaw(
        byGroup(a.result, `tag:${key}`),
        rawBy((r) => tagsOf(r)[key]),
      );
    }
    // Keys with a quote, a double quote, a dot, spaces and non-ASCII letters travel as parameters.
    const odd: CostSeriesQuery = {
      orgId: org,
      metricId: 'cost',
      groupBy: ["tag:it's", 'tag:say "hi"', 'tag:a.b', 'tag: équipe ', 'tag:コスト'],
      granularity: 'Month',
      ...SEPTEMBER,
      whereClause: {
        combinator: 'or',
        rules: [
          { field: "tag:it's", operator: 'null', value: [] },
          { field: 'tag:say "hi"', operator: 'notIn', value: ["x'y"] },
        ],
      },
    };
    const o = await septemberSeries(odd);
    expect(o.result.reduce((acc, r) => acc + r.value, 0)).toBeCloseTo(
      september.reduce((acc, r) => acc + num(r.BilledCost), 0),
      6,
    );

    const merged: FeatureModel = {
      labels: [
        {
          name: 'org_merged',
          columnsMerged: [
            { name: 'org', type: 'label' },
            { name: ' org', type: 'label' },
          ],
          maps: [],
        },
      ],
      vdims: [],
      enrichments: [],
    };
    const refreshed = await checked((w) => w.refreshFeatures(org, merged, 'full'));
    expect(refreshed.result.dimensions).toEqual((await duck.refreshFeatures(org, merged, 'full')).dimensions);
    const q: CostSeriesQuery = {
      orgId: org,
      metricId: 'cost',
      groupBy: 'org_merged',
      granularity: 'Month',
      ...SEPTEMBER,
    };
    const l = await septemberSeries(q);
    // The first source wins on a row that has both spellings.
    expectRaw(
      byGroup(l.result, 'org_merged'),
      rawBy((r) => tagsOf(r).org ?? tagsOf(r)[' org']),
    );
    await checked((w) => w.refreshFeatures(org, model, 'full'));
    await duck.refreshFeatures(org, model, 'full');
  });

  it('keeps the object an upload replaced, says what it held, and a restore puts it back (parts of one CUR)', async () => {
    const orgId = `org_trino_restore_${run}`;
    const dir = mkdtempSync(join(tmpdir(), 'athena-restore-'));
    const [header, ...data] = readFileSync(CUR_SAMPLE, 'utf8').trimEnd().split('\n') as [string, ...string[]];
    const parts = [data.slice(0, 900), data.slice(900)].map((lines, i) => {
      const path = join(dir, `part-${i + 1}.csv`);
      writeFileSync(path, `${[header, ...lines].join('\n')}\n`);
      return { path, rows: parseCsv(`${[header, ...lines].join('\n')}\n`) };
    });
    const [first, second] = parts as [(typeof parts)[0], (typeof parts)[0]];
    const usd = (rows: CsvRow[]) => rows.reduce((a, r) => a + num(r['lineItem/UnblendedCost']), 0);
    const novemberDaily = () => novemberByProvider(athena, orgId);
    const one = await athena.ingestFile({ orgId, path: first.path, sourceName: 'p1.csv', uploadId: 'upl_a' });
    expect(one.replaced).toBeUndefined();
    const two = await athena.ingestFile({
      orgId,
      path: second.path,
      sourceName: 'p2.csv',
      uploadId: 'upl_b',
    });
    const source = { provider: 'AWS', account: CUR_PAYER };
    // Each write of the org's objects gives its rows a new version.
    const afterTwo = await athena.dataVersion(orgId);
    expect(afterTwo).toEqual(expect.any(String));
    expect(two.replaced).toEqual([
      {
        month: '2023-11',
        ...source,
        before: { rows: first.rows.length, cost: { USD: expect.closeTo(usd(first.rows), 6) } },
        after: { rows: second.rows.length, cost: { USD: expect.closeTo(usd(second.rows), 6) } },
        kept: true,
      },
    ]);
    const kept = `replaced/upl_b/curated/org_id=${orgId}/billing_month=2023-11/${sourceObjectName(source)}`;
    expect(emulator.objects.has(kept)).toBe(true);
    expectSums(await novemberDaily(), prefixed('AWS', curDaily(second.rows)));
    const restored = await athena.restoreReplaced(orgId, 'upl_b', 'rst_1', two.replaced ?? []);
    expect(restored).toEqual([
      {
        month: '2023-11',
        ...source,
        before: { rows: second.rows.length, cost: { USD: expect.closeTo(usd(second.rows), 6) } },
        after: { rows: first.rows.length, cost: { USD: expect.closeTo(usd(first.rows), 6) } },
      },
    ]);
    expectSums(await novemberDaily(), prefixed('AWS', curDaily(first.rows)));
    expect(await athena.dataVersion(orgId)).not.toBe(afterTwo);
    // What the restore replaced is kept in turn, and the statements still meet Trino.
    expect(emulator.objects.has(kept.replace('upl_b', 'rst_1'))).toBe(true);
    // A replacement that does not drop markedly keeps nothing.
    const same = await athena.ingestFile({
      orgId,
      path: first.path,
      sourceName: 'p1.csv',
      uploadId: 'upl_c',
    });
    expect(same.replaced).toEqual([
      expect.objectContaining({ before: expect.objectContaining({ rows: first.rows.length }) }),
    ]);
    expect(same.replaced?.[0]?.kept).toBeUndefined();
    expect(emulator.objects.has(kept.replace('upl_b', 'upl_c'))).toBe(false);
    for (const st of emulator.statements) assertTrino(st.sql);
  });

  it('a Contract Commitment dataset is kept as one object per contract, no billing month replaced', async () => {
    const orgId = `org_trino_contracts_${run}`;
    const row = (id: string, contract: string, cost: number) => ({
      ContractCommitmentId: id,
      ContractId: contract,
      ContractPeriodStart: '2025-01-01T00:00:00Z',
      ContractPeriodEnd: '2027-01-01T00:00:00Z',
      ContractCommitmentPeriodStart: '2025-01-01T00:00:00Z',
      ContractCommitmentPeriodEnd: '2026-01-01T00:00:00Z',
      ContractCommitmentDescription: 'Spend in the first year',
      ContractCommitmentType: 'Annual spend commitment',
      ContractCommitmentCategory: 'Spend',
      ContractCommitmentUnit: null,
      ContractCommitmentQuantity: null,
      ContractCommitmentCost: cost,
      BillingCurrency: 'USD',
    });
    const path = join(mkdtempSync(join(tmpdir(), 'trino-contracts-')), 'contracts.csv');
    writeFileSync(path, csv([row('cc-1', 'c-1', 10_000), row('cc-2', 'c-2', 2_500)]));
    const before = new Set(emulator.objects.keys());
    const result = await athena.ingestFile({ orgId, path, sourceName: 'contracts.csv' });
    expect(result).toMatchObject({ format: 'contract-commitment', rows: 2, months: [] });
    const added = [...emulator.objects.keys()].filter((k) => !before.has(k)).sort();
    expect(added).toEqual([contractCommitmentKey(orgId, 'c-1'), contractCommitmentKey(orgId, 'c-2')].sort());
    // A 1.3 billing file of the organisation: its ContractApplied is checked against those objects
    // (listed from S3 page by page, read back): cc-7 is none of them.
    const bill = join(mkdtempSync(join(tmpdir(), 'trino-contract-bill-')), 'bill.csv');
    const applied = (i: number, commitment: string) =>
      underContract(i, [
        { ContractID: 'c-1', ContractCommitmentID: commitment, ContractCommitmentAppliedCost: 1 },
      ]);
    writeFileSync(bill, csv([applied(1, 'cc-1'), applied(2, 'cc-7'), applied(3, 'cc-2')], DEPRECATED_IN_1_3));
    const billed = await athena.ingestFile({ orgId, path: bill, sourceName: 'bill.csv' });
    expect(billed.conformance?.requirements.find((r) => r.id === 'ContractApplied-X-001-C')).toMatchObject({
      status: 'fail',
      violations: 1,
      samples: [expect.objectContaining({ line: 3 })],
    });
  });

  it('commitment facts and terms (docs/commitments.md): Athena = DuckDB, converted or not', async () => {
    const days = ['2024-04-01', '2024-04-02', '2024-04-03'];
    const path = join(mkdtempSync(join(tmpdir(), 'trino-commitments-')), 'cur2.csv');
    writeFileSync(
      path,
      csvText(CUR2_HEADER, curCommitmentLines(days, '2025-01-14T23:59:59Z', '2026-05-31T23:59:59Z')),
    );
    for (const w of [athena, duck]) await w.ingestFile({ orgId: org, path, sourceName: 'cur2.csv' });
    const range = { start: '2024-04-01', end: '2024-04-04' };
    const conversion = {
      target: 'EUR',
      from: '2024-04-01',
      factors: days.map((day, i) => ({ currency: 'USD', day, factor: 0.9 + i / 100 })),
    };
    for (const extra of [{}, { conversion }]) {
      const q = {
        orgId: org,
        ...range,
        grain: 'day' as const,
        groupBy: ['provider', 'service'] as const,
        eligible: eligibleClause(),
        ...extra,
      };
      const facts = await checked((w) => w.commitmentFacts(q), { months: ['2024-04'] });
      expect(facts.statements).toHaveLength(1);
      const key = (f: { bucket: string; commitmentId: string; group: object }) =>
        `${f.bucket}|${f.commitmentId}|${JSON.stringify(f.group)}`;
      const mine = await duck.commitmentFacts(q);
      expect(facts.result.map(key).sort()).toEqual(mine.map(key).sort());
      expect(mine.some((f) => f.unused > 0 && f.commitmentId)).toBe(true);
      for (const f of facts.result) {
        const d = mine.find((x) => key(x) === key(f))!;
        for (const m of ['used', 'unused', 'fee', 'coveredList', 'credit', 'eligibleList'] as const)
          expect(f[m]).toBeCloseTo(d[m], 9);
      }
    }
    const hourly = await checked(
      (w) =>
        w.commitmentFacts({ orgId: org, ...range, grain: 'hour', groupBy: [], eligible: eligibleClause() }),
      { months: ['2024-04'] },
    );
    expect(hourly.result.every((f) => /^2024-04-0\dT\d{2}:00:00Z$/.test(f.bucket))).toBe(true);
    const terms = await checked((w) => w.commitmentTerms(org, range), { months: ['2024-04'] });
    expect(terms.result).toEqual(await duck.commitmentTerms(org, range));
    expect(terms.result.map((t) => [t.type, t.term])).toEqual(
      expect.arrayContaining([
        ['Savings Plan', '1yr'],
        ['Reservation', '3yr'],
      ]),
    );
    const all = await checked((w) => w.commitmentTerms(org));
    expect(all.result).toEqual(await duck.commitmentTerms(org));
  });

  it('keeps a data version: one read from the table, no statement, the same until the next write', async () => {
    const version = await checked((w) => w.dataVersion(org));
    expect(version.result).toEqual(expect.any(String));
    expect(version.statements).toEqual([]);
    expect(await athena.dataVersion(org)).toBe(version.result);
    expect(await athena.dataVersion(`org_never_${run}`)).toBeUndefined();
  });

  it('drives every public method of the adapter (a new method fails here until a test drives it)', () => {
    const methods = new Set<string>();
    for (let p = AthenaWarehouse.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p))
      for (const name of Object.getOwnPropertyNames(p)) if (name !== 'constructor') methods.add(name);
    // Protected helpers: they build no statement of their own, the public methods above run them
    // (`keepContractCommitments` is `ingestFile`'s branch for a Contract Commitment dataset, and
    // `storedContractCommitments` its read of them for a billing file's ContractApplied, both driven above).
    const internal = new Set([
      'table',
      'bucket',
      'stored',
      'series',
      'bind',
      'keepContractCommitments',
      'storedContractCommitments',
      // `ingestFile` and `restoreReplaced` between two new data versions.
      'ingest',
      'restore',
    ]);
    expect(AthenaQueries.prototype).toBeInstanceOf(Object);
    const untested = [...methods].filter((m) => !internal.has(m) && !called.has(m));
    expect(untested).toEqual([]);
  });
});

describe('Athena ingestion: one object per billing month and source (provider, billing account)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'athena-sources-'));
  const { cur, azure, corrected, secondPayer } = billingSourceSamples(dir);
  const ingest = (orgId: string, file: { path: string }) =>
    athena.ingestFile({ orgId, path: file.path, sourceName: 'upload.csv' });
  const folder = (orgId: string) => `curated/org_id=${orgId}/billing_month=2023-11/`;
  const objectsOf = (orgId: string) =>
    [...emulator.objects.keys()]
      .filter((k) => k.startsWith(folder(orgId)))
      .map((k) => k.slice(folder(orgId).length));

  /** November cost per `provider|account|day`, from the Athena adapter. */
  async function daily(orgId: string): Promise<Map<string, number>> {
    const rows = await athena.costSeries({
      orgId,
      metricId: 'cost',
      groupBy: ['provider', 'billing_account'],
      granularity: 'Day',
      start: '2023-11-01',
      end: '2023-12-01',
    });
    const out = new Map<string, number>();
    for (const r of rows) out.set([...Object.values(r.group), r.period].join('|'), r.value);
    return out;
  }
  const expected = (curRows: CsvRow[], withSecondPayer: boolean) => [
    ...prefixed(`AWS|${CUR_PAYER}`, curDaily(curRows)),
    ...(withSecondPayer ? prefixed('AWS|999988887777', curDaily(secondPayer.rows)) : []),
    ...prefixed('Microsoft|12345678', azureDaily(azure.rows)),
  ];
  /**
   * The month of `orgId` holds `objects` (that many, or exactly these names), and its November cost
   * is the CUR's `curRows` (with the second payer's if asked) and the Azure export's.
   */
  async function expectMonth(
    orgId: string,
    objects: number | string[],
    curRows: CsvRow[],
    withSecondPayer: boolean,
  ) {
    if (typeof objects === 'number') expect(objectsOf(orgId)).toHaveLength(objects);
    else expect(objectsOf(orgId)).toEqual(objects);
    expectSums(await daily(orgId), expected(curRows, withSecondPayer));
  }

  it('keeps a CUR and an Azure export of one month; a corrected CUR or another payer account touches only its own', async () => {
    const orgId = `org_trino_src_${run}`;
    await ingest(orgId, cur);
    await ingest(orgId, azure);
    await expectMonth(orgId, 2, cur.rows, false);
    await ingest(orgId, corrected);
    await expectMonth(orgId, 2, corrected.rows, false);
    await ingest(orgId, secondPayer);
    await expectMonth(orgId, 3, corrected.rows, true);
  });

  it('a month written as one data.parquet keeps it: its sources are replaced inside it, new sources get objects', async () => {
    const orgId = `org_trino_legacy_${run}`;
    // The layout before objects were per source: both uploads' rows in one data.parquet.
    await ingest(orgId, cur);
    await ingest(orgId, azure);
    const parts = objectsOf(orgId).map((name, i) => {
      const path = join(dir, `part-${i}.parquet`);
      writeFileSync(path, emulator.objects.get(folder(orgId) + name) ?? new Uint8Array());
      emulator.setObject(folder(orgId) + name, undefined);
      return path;
    });
    const legacy = join(dir, 'legacy.parquet');
    await withConnection((c) =>
      query(
        c,
        `COPY (SELECT * FROM read_parquet(${JSON.stringify(parts).replaceAll('"', "'")})) TO '${legacy}' (FORMAT parquet)`,
      ),
    );
    emulator.setObject(`${folder(orgId)}data.parquet`, readFileSync(legacy));
    await expectMonth(orgId, ['data.parquet'], cur.rows, false);

    // A corrected CUR replaces the AWS rows inside data.parquet (one conditional PutObject).
    const before = emulator.objects.get(`${folder(orgId)}data.parquet`);
    await ingest(orgId, corrected);
    expect(emulator.objects.get(`${folder(orgId)}data.parquet`)).not.toBe(before);
    await expectMonth(orgId, ['data.parquet'], corrected.rows, false);
    // Another payer account was not in data.parquet: it gets its own object.
    await ingest(orgId, secondPayer);
    await expectMonth(orgId, 2, corrected.rows, true);
    // And a re-ingestion of the Azure file replaces it inside data.parquet, nothing doubles.
    await ingest(orgId, azure);
    await expectMonth(orgId, 2, corrected.rows, true);
  });

  it('a data.parquet changed between read and write is not overwritten (412), so the ingestion is retried', async () => {
    const key = `${folder(`org_trino_legacy_${run}`)}data.parquet`;
    const file = join(dir, 'stale.parquet');
    writeFileSync(file, emulator.objects.get(key) ?? new Uint8Array());
    await expect(uploadObject('billing-bucket', key, file, { ifMatch: '"stale"' })).rejects.toBeInstanceOf(
      ObjectChangedError,
    );
  });
});
