import * as v from 'valibot';
import { isCredentialRefused } from '../../../console/src/api';
import {
  candidateRows,
  dashboardConditions,
  type ExplorerResult,
  explorerRequest,
  gridArea,
  isEmptyResult,
  labelPublishBody,
  newWidget,
  publishBody,
  readingOrder,
  type Widget,
  widgetChartType,
  widgetSpec,
  withPreset,
} from '../../../console/src/shape';
import type { EChartsSpec, TableSpec } from '../../../shared/charts/spec';
import { PublishBody } from '../../../shared/domain/dimensions/schemas';
import { PublishDashboardBody } from '../../../shared/model/dashboard-schemas';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { DASHBOARD_DEFAULTS } from '../../fixtures/dashboards/defaults';
import { explorerWidget } from '../../support/explorer';

/** Raw figures: provider → one value per month. The expectations are computed from these. */
const RAW: Record<string, number[]> = {
  AWS: [1200.456, 980.1, 1010.25],
  'Google Cloud': [300.5, 410.75, 0],
  Oracle: [12.3, 0, 4.44],
};
const MONTHS = ['2026-08-01', '2026-09-01', '2026-10-01'];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function result(currency: string | null = 'EUR', unit: string | null = currency): ExplorerResult {
  return {
    period: { startDate: '2026-08-01', endDate: '2026-10-31', aggBy: 'Month' },
    queries: [
      {
        name: 'a',
        type: 'cost',
        alias: null,
        unit,
        currency,
        total: sum(Object.values(RAW).flat()),
        series: Object.entries(RAW).map(([provider, values]) => ({
          group: { provider },
          points: values.map((value, i) => ({ date: MONTHS[i]!, value })),
          total: sum(values),
        })),
      },
    ],
    dataThrough: '2026-10-29',
    currency,
  };
}

function widget(chartType: string, extra: Partial<Widget['source']['request']> = {}): Widget {
  return explorerWidget('w1', 'Cost by provider', {
    period: { datePreset: 'LAST_3_MONTHS', aggBy: 'Month' },
    queries: [{ type: 'cost', name: 'a', colorIndex: 0, chartType, groupBy: 'provider' }],
    ...extra,
  }) as Widget;
}

const money = (x: number, currency: string, digits: number) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(x);

describe('widget data → chart spec (the shared builder)', () => {
  it('draws a TABLE with one row per group, figures in the query currency and the widget precision', () => {
    const spec = widgetSpec(
      widget('TABLE', { displayOptions: { precision: 1 } }),
      result('EUR'),
    ) as TableSpec;
    expect(spec.kind).toBe('table');
    expect(spec.columns).toEqual(['Series', ...MONTHS, 'Total']);
    // Largest total first; each cell is the raw figure in euros with one decimal.
    const byTotal = Object.entries(RAW).sort((a, b) => sum(b[1]) - sum(a[1]));
    expect(spec.rows.map((r) => r[0])).toEqual(byTotal.map(([name]) => name));
    for (const [i, [, values]] of byTotal.entries()) {
      expect(spec.rows[i]).toEqual(expect.arrayContaining(values.map((x) => money(x, 'EUR', 1))));
      expect(spec.rows[i]!.at(-1)).toBe(money(sum(values), 'EUR', 1));
    }
    expect(spec.totalRow!.at(-1)).toBe(money(sum(Object.values(RAW).flat()), 'EUR', 1));
    expect(spec.totalRow![1]).toBe(money(sum(Object.values(RAW).map((xs) => xs[0]!)), 'EUR', 1));
    expect(spec.stamp.join(' ')).toContain('data through 2026-10-29');
  });

  it('keeps the top N groups and sums the rest into Other', () => {
    const spec = widgetSpec(
      widget('TABLE', { displayOptions: { topN: 1, showTotal: false } }),
      result('USD'),
    );
    const rows = (spec as TableSpec).rows;
    expect(rows.map((r) => r[0])).toEqual(['AWS', 'Other']);
    expect(rows[1]!.at(-1)).toBe(money(sum([...RAW['Google Cloud']!, ...RAW.Oracle!]), 'USD', 2));
    expect((spec as TableSpec).totalRow).toBeNull();
  });

  it('stacks a BAR chart per group over the buckets, with the total in the subtitle', () => {
    const spec = widgetSpec(widget('BAR'), result('USD')) as EChartsSpec;
    expect(spec.kind).toBe('echarts');
    expect(spec.option.xAxis.data).toEqual(MONTHS);
    expect(spec.option.series.map((s: { name: string }) => s.name)).toEqual(Object.keys(RAW));
    expect(spec.option.series[0].data).toEqual(RAW.AWS);
    expect(
      spec.option.series.every((s: { type: string; stack: string }) => s.type === 'bar' && s.stack),
    ).toBe(true);
    expect(spec.option.title[0].subtext).toContain(
      `Total ${money(sum(Object.values(RAW).flat()), 'USD', 2)}`,
    );
  });

  it('draws LINE unstacked and AREA stacked with an area', () => {
    const line = widgetSpec(widget('LINE'), result()) as EChartsSpec;
    expect(line.option.series[0].type).toBe('line');
    expect(line.option.series[0].stack).toBeUndefined();
    const area = widgetSpec(widget('AREA'), result()) as EChartsSpec;
    expect(area.option.series[0].areaStyle).toBeDefined();
    expect(area.option.series[0].stack).toBe('total');
  });

  it('steps a WATERFALL through the group totals to the grand total', () => {
    const spec = widgetSpec(widget('WATERFALL'), result('USD')) as EChartsSpec;
    expect(spec.option.xAxis.data).toEqual([...Object.keys(RAW), 'Total']);
    const totalBar = spec.option.series.find((s: { name?: string }) => s.name === 'Total');
    expect(totalBar.data.at(-1)).toBeCloseTo(sum(Object.values(RAW).flat()), 6);
  });

  it('formats unit-less figures with their unit when no query has a currency', () => {
    const spec = widgetSpec(widget('TABLE'), result(null, 'GB-Mo')) as TableSpec;
    expect(spec.rows[0]!.at(-1)).toBe(
      `${new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(sum(RAW.AWS!))} GB-Mo`,
    );
  });

  it('reads the chart type from the first visible query, a table for types it cannot draw', () => {
    const w = widget('LINE');
    w.source.request.queries = [
      { type: 'cost', name: 'a', chartType: 'BAR', visible: false },
      { type: 'cost', name: 'b', chartType: 'AREA' },
    ];
    expect(widgetChartType(w)).toBe('AREA');
    expect(widgetChartType(widget('KPI_BREAKDOWN'))).toBe('TABLE');
    const noType = widget('BAR');
    delete noType.source.request.queries[0]!.chartType;
    expect(widgetChartType(noType)).toBe('BAR');
  });

  it('tells an answer with no figure from one with figures', () => {
    expect(isEmptyResult(result())).toBe(false);
    const empty = result();
    for (const s of empty.queries[0]!.series) {
      s.total = 0;
      s.points = s.points.map((p) => ({ ...p, value: p.value === null ? null : 0 }));
    }
    expect(isEmptyResult(empty)).toBe(true);
    expect(isEmptyResult({ ...result(), queries: [] })).toBe(true);
  });
});

describe('dashboard layout and context', () => {
  it('places widgets on the 12-column grid, clamped to its width', () => {
    expect(gridArea({ x: 6, y: 2, w: 6, h: 4 })).toEqual({ gridColumn: '7 / span 6', gridRow: '3 / span 4' });
    expect(gridArea({ x: 10, y: 0, w: 6, h: 0 })).toEqual({
      gridColumn: '11 / span 2',
      gridRow: '1 / span 1',
    });
    const order = readingOrder([
      { key: 'c', x: 0, y: 4 },
      { key: 'b', x: 6, y: 0 },
      { key: 'a', x: 0, y: 0 },
    ]);
    expect(order.map((w) => w.key)).toEqual(['a', 'b', 'c']);
  });

  it("passes on the dashboard's conditions only when they are a where clause", () => {
    const clause = { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] };
    expect(dashboardConditions(clause)).toBe(clause);
    expect(dashboardConditions({ provider: ['AWS'] })).toBeNull();
    expect(dashboardConditions(null)).toBeNull();
  });

  it('switches the date preset and drops explicit dates so the preset applies', () => {
    const req = widget('BAR').source.request;
    req.period = { startDate: '2026-01-01T00:00:00Z', endDate: '2026-01-31T00:00:00Z', aggBy: 'Day' };
    const out = withPreset(req, 'MTD');
    expect(out.period).toEqual({ datePreset: 'MTD', startDate: null, endDate: null, aggBy: 'Day' });
    expect(req.period.datePreset).toBeUndefined();
    expect(v.safeParse(ExplorerRequestSchema, out).success).toBe(true);
  });
});

describe('explorer form → request the API accepts', () => {
  const form = {
    metricId: 'effective_cost',
    groupBy: ['provider', 'ServiceName'],
    filters: [
      { field: 'provider', operator: 'in', values: ['AWS', 'Oracle'] },
      { field: 'ServiceName', operator: 'contains', values: ['Compute'] },
      { field: 'region', operator: 'notNull', values: [] },
      { field: 'provider', operator: 'notIn', values: [] },
      { field: '', operator: 'in', values: ['x'] },
    ],
    datePreset: 'LAST_3_MONTHS',
    aggBy: 'Month',
    chartType: 'BAR' as const,
    compare: false,
    forecastDays: 0,
  };

  it('asks the previous period and a forecast when the form does, in a request the API accepts', () => {
    const req = explorerRequest({ ...form, compare: true, forecastDays: 30 });
    expect(req.period).toEqual({
      datePreset: 'LAST_3_MONTHS',
      aggBy: 'Month',
      comparisonPeriod: { startDate: null, endDate: null, enabled: true, chartType: 'TABLE' },
      forecastDays: 30,
    });
    const parsed = v.safeParse(ExplorerRequestSchema, req);
    expect(parsed.issues?.map((i) => i.message)).toBeUndefined();
  });

  it('builds one cost query grouped by up to two dimensions, with complete filters only', () => {
    const req = explorerRequest(form);
    expect(req.period).toEqual({ datePreset: 'LAST_3_MONTHS', aggBy: 'Month' });
    expect(req.queries[0]).toMatchObject({
      type: 'cost',
      metricId: 'effective_cost',
      chartType: 'BAR',
      groupBy: ['provider', 'ServiceName'],
      whereClause: {
        combinator: 'and',
        rules: [
          { field: 'provider', operator: 'in', value: ['AWS', 'Oracle'] },
          { field: 'ServiceName', operator: 'contains', value: ['Compute'] },
          { field: 'region', operator: 'notNull', value: [] },
        ],
      },
    });
    const parsed = v.safeParse(ExplorerRequestSchema, req);
    expect(parsed.issues?.map((i) => i.message)).toBeUndefined();
    expect(explorerRequest({ ...form, groupBy: ['provider', ''], filters: [] }).queries[0]).toMatchObject({
      groupBy: 'provider',
    });
    const none = explorerRequest({ ...form, groupBy: ['', ''], filters: [] }).queries[0]!;
    expect(none.groupBy).toBeNull();
    expect(none.whereClause).toBeUndefined();
  });

  it('saves as a new widget under the last row with a free key, in a publish body the API accepts', () => {
    const existing = [
      { ...widget('BAR'), key: 'w1', y: 0, h: 4 },
      { ...widget('LINE'), key: 'w3', y: 4, h: 3 },
    ];
    const w = newWidget(existing, 'New', explorerRequest(form));
    expect(w.key).toBe('w4');
    expect(w.y).toBe(7);
    const body = publishBody(
      {
        ...DASHBOARD_DEFAULTS,
        id: 'dash_1',
        name: 'Costs',
        type: 'PUBLIC',
        currency: 'USD',
        version: 5,
        publishedVersion: 4,
        widgets: existing,
      },
      w,
    );
    expect(body.version).toBe(5);
    expect((body.widgets as Widget[]).map((x) => x.key)).toEqual(['w1', 'w3', 'w4']);
    const parsed = v.safeParse(PublishDashboardBody, body);
    expect(parsed.issues?.map((i) => i.message)).toBeUndefined();
  });
});

describe('credential refusal', () => {
  it('signs out on a refused credential (401), not on a role refusal (403)', () => {
    // Every bad credential is 401 from the route; a 403 is a role refusal and keeps the session.
    expect(isCredentialRefused(401)).toBe(true);
    expect(isCredentialRefused(403)).toBe(false);
    expect(isCredentialRefused(404)).toBe(false);
  });
});

describe('dimension candidates', () => {
  const raw = [
    {
      key: 'team',
      number_values: 3,
      total_cost_key_present: 300,
      total_cost_key_absent: 100,
      values: [
        { value: 'a', cost_allocated: 50, proportion_cost_allocated: 0.125 },
        { value: 'b', cost_allocated: 200, proportion_cost_allocated: 0.5 },
        { value: 'c', cost_allocated: 50, proportion_cost_allocated: 0.125 },
        { value: 'd', cost_allocated: 0, proportion_cost_allocated: 0 },
      ],
      providers: ['AWS'],
    },
    {
      key: 'env',
      number_values: 1,
      total_cost_key_present: 350,
      total_cost_key_absent: 50,
      values: [{ value: 'prod', cost_allocated: 350, proportion_cost_allocated: 0.875 }],
      providers: ['AWS', 'Google Cloud'],
      ingested: true,
    },
    {
      key: 'empty',
      number_values: 0,
      total_cost_key_present: 0,
      total_cost_key_absent: 0,
      values: [],
      providers: [],
    },
  ];

  it('ranks candidates by the cost carrying the key, with present and absent shares', () => {
    const rows = candidateRows(raw);
    expect(rows.map((r) => r.key)).toEqual(['env', 'team', 'empty']);
    expect(rows[0]!.presentPct).toBeCloseTo((350 / (350 + 50)) * 100, 9);
    expect(rows[1]!.presentPct + rows[1]!.absentPct).toBeCloseTo(100, 9);
    expect(rows[1]!.topValues[0]).toBe('b');
    expect(rows[1]!.topValues).toHaveLength(3);
    expect(rows[2]).toMatchObject({ presentPct: 0, absentPct: 0 });
    expect(rows[0]!.ingested).toBe(true);
  });

  it('publishes one label from a candidate key, in a body the API accepts', () => {
    const body = labelPublishBody('team', ['team']);
    const parsed = v.safeParse(PublishBody, body);
    expect(parsed.issues?.map((i) => i.message)).toBeUndefined();
    expect(body).toEqual({
      scope: 'labels',
      labels: [{ name: 'team', columnsMerged: [{ name: 'team', type: 'label' }], maps: [] }],
    });
  });

  it('offers the merge of the spellings of a key: one label, named without outer spaces, every spelling a source', () => {
    const cand = (key: string, present: number, similar: string[]) => ({
      key,
      number_values: 1,
      total_cost_key_present: present,
      total_cost_key_absent: 100 - present,
      values: [],
      providers: ['AWS'],
      similar_keys: similar,
    });
    const rows = candidateRows([
      cand('team', 10, [' team', 'Team']),
      cand(' team', 40, ['Team', 'team']),
      cand('Team', 5, [' team', 'team']),
      cand(' org', 3, []),
      { ...cand('env', 1, []), similar_keys: undefined },
    ]);
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    for (const key of ['team', ' team', 'Team']) {
      expect(byKey[key]?.label).toEqual({ name: 'team', keys: [' team', 'team', 'Team'] });
      expect(byKey[key]?.similar).toHaveLength(2);
    }
    expect(byKey[' org']?.label).toEqual({ name: 'org', keys: [' org'] });
    expect(byKey.env).toMatchObject({ similar: [], label: { name: 'env', keys: ['env'] } });
    const body = labelPublishBody(byKey.Team!.label.name, byKey.Team!.label.keys);
    expect(v.safeParse(PublishBody, body).issues).toBeUndefined();
    expect(body).toEqual({
      scope: 'labels',
      labels: [
        {
          name: 'team',
          columnsMerged: [
            { name: ' team', type: 'label' },
            { name: 'team', type: 'label' },
            { name: 'Team', type: 'label' },
          ],
          maps: [],
        },
      ],
    });
  });
});
