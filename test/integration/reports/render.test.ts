import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { buildChartSpec, formatFigure, type TableSpec } from '../../../shared/charts/spec';
import { renderAttachments } from '../../../shared/domain/reports/render/attachments';
import { formatReport } from '../../../shared/domain/reports/render/format';
import type { RenderContext, WidgetData } from '../../../shared/domain/reports/render/widget-data';
import { renderWidget } from '../../../shared/domain/reports/render/widgets';
import type { Dashboard } from '../../../shared/model/dashboards';
import { ReportWidget } from '../../../shared/model/report-schemas';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { type CsvRow, close, ingestGenerated, num } from '../warehouse/support';

/**
 * GRAPH_SNAPSHOT and DASHBOARD_PDF rendered from the engine over DuckDB: every figure a chart or
 * table draws is checked against sums computed here from the generated CSV rows; the PNG and PDF
 * are checked as files (signature, size, pages, embedded font) and written to
 * test/artifacts/reports/ to be looked at.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const org = `org_rr_${run}`;
const ARTIFACTS = join(__dirname, '..', '..', 'artifacts', 'reports');
let rows: CsvRow[] = [];
// The generated data runs 2024-09-01 … 2024-10-20; LAST_MONTH at this time is October 2024.
const now = new Date('2024-11-04T08:00:00Z');
const OCT = (r: CsvRow) => day(r) >= '2024-10-01' && day(r) <= '2024-10-31';
const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const cost = (r: CsvRow) => num(r.BilledCost);

function sums(filter: (r: CsvRow) => boolean, key: (r: CsvRow) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows.filter(filter)) out.set(key(r), (out.get(key(r)) ?? 0) + cost(r));
  return out;
}

function expectClose(actual: number | null | undefined, expected: number) {
  if (!close(actual ?? Number.NaN, expected, 1e-9)) throw new Error(`got ${actual}, expected ${expected}`);
}

const q = (name: string, chartType: string, extra: Record<string, unknown> = {}) => ({
  type: 'cost',
  name,
  colorIndex: 0,
  chartType,
  ...extra,
});

const dashboard: Dashboard = {
  id: 'dash_render',
  organizationId: org,
  name: 'Cloud spend € £ ¥ ₩',
  description: '',
  type: 'PUBLIC',
  teamId: null,
  datePreset: 'LAST_MONTH',
  startDate: null,
  endDate: null,
  currency: null,
  conditions: null,
  createdById: 'u1',
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
  archivedAt: null,
  version: 1,
  publishedVersion: 1,
  publishedAt: now.toISOString(),
  widgetCount: 3,
  widgets: [
    {
      key: 'by-region',
      x: 0,
      y: 8,
      w: 6,
      h: 4,
      title: 'Top regions',
      description: '',
      source: {
        type: 'advancedExplorer',
        request: {
          period: { aggBy: 'Period' },
          queries: [q('a', 'TABLE', { groupBy: ['region'] })],
          displayOptions: { topN: 3, precision: 2, showTotal: true },
        },
      },
    },
    {
      key: 'daily',
      x: 0,
      y: 0,
      w: 12,
      h: 4,
      title: 'Daily cost by provider',
      description: '',
      source: {
        type: 'advancedExplorer',
        request: { period: { aggBy: 'Day' }, queries: [q('a', 'LINE', { groupBy: ['provider'] })] },
      },
    },
    {
      key: 'waterfall',
      x: 0,
      y: 4,
      w: 12,
      h: 4,
      title: 'Cost by service',
      description: '',
      source: {
        type: 'advancedExplorer',
        request: { period: { aggBy: 'Period' }, queries: [q('a', 'WATERFALL', { groupBy: ['service'] })] },
      },
    },
  ],
} as unknown as Dashboard;

const ctx: RenderContext = {
  orgId: org,
  context: { metricId: 'cost', groupBy: 'provider', datePreset: 'LAST_MONTH', currency: 'USD' },
  now,
  timeZone: 'UTC',
  dashboards: async (id) => (id === dashboard.id ? dashboard : null),
};

const widget = (input: unknown) => v.parse(ReportWidget, input);

function pngSize(png: Uint8Array): { width: number; height: number } {
  expect(Buffer.from(png.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');
  expect(Buffer.from(png.subarray(12, 16)).toString('latin1')).toBe('IHDR');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

beforeAll(async () => {
  rows = await ingestGenerated(warehouse, org, {
    seed: 11,
    months: ['2024-09', '2024-10'],
    resourcesPerProvider: 3,
    until: '2024-10-21',
    accountPrefix: `rr${run}`,
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

describe('GRAPH_SNAPSHOT', () => {
  it("draws the report context's weekly cost by provider with the CSV's sums, and states period and cut-off", async () => {
    const w = await renderWidget(ctx, widget({ type: 'GRAPH_SNAPSHOT', aggBy: 'Week', chartType: 'BAR' }));
    if (w.type !== 'GRAPH_SNAPSHOT' || !w.rendered) throw new Error('not rendered');
    expect(w.period).toMatchObject({ startDate: '2024-10-01', endDate: '2024-10-31' });
    expect(w.dataThrough).toBe('2024-10-19');
    expect(w.chart.stamp[0]).toBe('Period 2024-10-01 to 2024-10-31 · data through 2024-10-19');
    expect(w.chart.stamp[1]).toBe('Figures in USD, not converted');
    const expected = sums(OCT, (r) => String(r.ProviderName));
    expect(new Set(w.chart.series.map((s) => s.name))).toEqual(new Set(expected.keys()));
    for (const s of w.chart.series) {
      expectClose(s.total, expected.get(s.name) ?? Number.NaN);
      // Each weekly bucket equals the CSV's rows of that provider from the bucket's start to the next.
      const starts = s.points.map((p) => p.date);
      s.points.forEach((p, i) => {
        const next = starts[i + 1] ?? '2024-11-01';
        const from = p.date < '2024-10-01' ? '2024-10-01' : p.date;
        expectClose(
          p.value ?? 0,
          [
            ...sums(
              (r) => OCT(r) && day(r) >= from && day(r) < next && r.ProviderName === s.name,
              () => 'k',
            ).values(),
          ][0] ?? 0,
        );
      });
    }
    const spec = buildChartSpec(w.chart);
    if (spec.kind !== 'echarts') throw new Error('expected a chart');
    const total = [...expected.values()].reduce((a, x) => a + x, 0);
    expect(spec.option.title[0].subtext).toContain(`Total ${formatFigure(total, 'USD', 2)}`);
    expect(spec.option.title[0].subtext).toContain('data through 2024-10-19');
  });

  it('draws a TABLE with topN, Other and the total, every cell equal to the CSV', async () => {
    const w = await renderWidget(
      ctx,
      widget({
        type: 'GRAPH_SNAPSHOT',
        title: 'Top services ₩',
        groupBy: 'service',
        aggBy: 'Month',
        chartType: 'TABLE',
        displayOptions: { topN: 3, precision: 2 },
      }),
    );
    if (w.type !== 'GRAPH_SNAPSHOT' || !w.rendered) throw new Error('not rendered');
    const spec = buildChartSpec(w.chart) as TableSpec;
    expect(spec.kind).toBe('table');
    const expected = [...sums(OCT, (r) => String(r.ServiceName)).entries()].sort((a, b) => b[1] - a[1]);
    const top = expected.slice(0, 3);
    const rest = expected.slice(3).reduce((a, [, x]) => a + x, 0);
    const all = expected.reduce((a, [, x]) => a + x, 0);
    const fmt = (x: number) => formatFigure(x, 'USD', 2);
    expect(spec.rows).toEqual([...top.map(([k, x]) => [k, fmt(x)]), ['Other', fmt(rest)]]);
    expect(spec.totalRow).toEqual(['Total', fmt(all)]);

    const [png] = await renderAttachments([w], { name: 'r' }, now.toISOString());
    expect(png).toMatchObject({
      filename: 'chart-1-top-services.png',
      contentType: 'image/png',
      inline: true,
    });
    expect(pngSize(png!.content).width).toBeGreaterThanOrEqual(1600);
    writeFileSync(join(ARTIFACTS, 'table-snapshot.png'), png!.content);
  });

  it("snapshots a dashboard widget with the dashboard's period, and says so when the widget is gone", async () => {
    const w = await renderWidget(
      ctx,
      widget({ type: 'GRAPH_SNAPSHOT', dashboardId: dashboard.id, widgetKey: 'waterfall' }),
    );
    if (w.type !== 'GRAPH_SNAPSHOT' || !w.rendered) throw new Error('not rendered');
    expect(w.chart.chartType).toBe('WATERFALL');
    expect(w.chart.title).toBe('Cost by service');
    const expected = sums(OCT, (r) => String(r.ServiceName));
    for (const s of w.chart.series) expectClose(s.total, expected.get(s.name) ?? Number.NaN);
    const spec = buildChartSpec(w.chart);
    if (spec.kind !== 'echarts') throw new Error('expected a chart');
    const totalBar = (spec.option.series as { name?: string; data: unknown[] }[]).find(
      (s) => s.name === 'Total',
    );
    expectClose(
      totalBar?.data.at(-1) as number,
      [...expected.values()].reduce((a, x) => a + x, 0),
    );

    const gone = await renderWidget(
      ctx,
      widget({ type: 'GRAPH_SNAPSHOT', dashboardId: dashboard.id, widgetKey: 'nope' }),
    );
    expect(gone).toMatchObject({ type: 'GRAPH_SNAPSHOT', rendered: false });
  });
});

describe('a report with charts and a dashboard PDF', () => {
  let widgets: WidgetData[];

  beforeAll(async () => {
    widgets = [];
    for (const input of [
      { type: 'TEXT', contentMarkdown: 'Monthly **spend**' },
      { type: 'GRAPH_SNAPSHOT', title: 'Daily cost', aggBy: 'Day', chartType: 'AREA' },
      { type: 'GRAPH_SNAPSHOT', title: 'By service', groupBy: 'service', aggBy: 'Week', chartType: 'LINE' },
      { type: 'DASHBOARD_PDF', dashboardId: dashboard.id },
    ])
      widgets.push(await renderWidget(ctx, widget(input)));
  });

  it('renders the dashboard widgets in grid order with figures equal to the CSV', () => {
    const pdf = widgets[3]!;
    if (pdf.type !== 'DASHBOARD_PDF' || !pdf.rendered) throw new Error('not rendered');
    expect(pdf.charts.map((c) => c.key)).toEqual(['daily', 'waterfall', 'by-region']);
    const byDayProvider = sums(OCT, (r) => `${day(r)}|${r.ProviderName}`);
    for (const s of pdf.charts[0]!.chart.series)
      for (const p of s.points) expectClose(p.value ?? 0, byDayProvider.get(`${p.date}|${s.name}`) ?? 0);
    const byRegion = [...sums(OCT, (r) => String(r.RegionId ?? '(none)')).entries()].sort(
      (a, b) => b[1] - a[1],
    );
    const table = buildChartSpec(pdf.charts[2]!.chart) as TableSpec;
    expect(table.rows.slice(0, 3)).toEqual(
      byRegion.slice(0, 3).map(([k, x]) => [k, formatFigure(x, 'USD', 2)]),
    );
    for (const c of pdf.charts) expect(c.chart.stamp[0]).toContain('data through 2024-10-19');
  });

  it('produces one inline PNG per chart and one PDF, referenced by the email', async () => {
    const attachments = await renderAttachments(widgets, { name: 'Monthly spend' }, now.toISOString());
    for (const a of attachments) writeFileSync(join(ARTIFACTS, a.filename), a.content);
    expect(attachments.map((a) => [a.filename, a.contentType, a.inline])).toEqual([
      ['chart-2-daily-cost.png', 'image/png', true],
      ['chart-3-by-service.png', 'image/png', true],
      ['dashboard-4-cloud-spend.pdf', 'application/pdf', false],
    ]);
    for (const a of attachments.slice(0, 2)) expect(pngSize(a.content)).toEqual({ width: 1600, height: 840 });
    const pdf = Buffer.from(attachments[2]!.content).toString('latin1');
    expect(pdf.startsWith('%PDF-1.')).toBe(true);
    expect(pdf.trimEnd().endsWith('%%EOF')).toBe(true);
    // One page per dashboard widget, the DejaVu font embedded (subset) as TrueType.
    expect(pdf.match(/\/Type \/Page\b/g)).toHaveLength(3);
    expect(pdf).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans\b/);
    expect(pdf).toContain('/FontFile2');

    const rendered = formatReport(
      { name: 'Monthly spend', description: '' },
      now.toISOString(),
      widgets,
      attachments,
    );
    expect(rendered.attachments).toBe(attachments);
    expect(rendered.html).toContain('<img src="cid:chart-2-daily-cost.png"');
    expect(rendered.html).toContain('attached as dashboard-4-cloud-spend.pdf');
    expect(rendered.text).toContain('Period 2024-10-01 to 2024-10-31 · data through 2024-10-19');

    writeFileSync(join(ARTIFACTS, 'email.html'), rendered.html);
  }, 60_000);
});
