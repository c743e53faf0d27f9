import { type AlertEvaluation, historyCauses } from '../../../console/src/alerts-shape';
import { BAND_ID, figureFormat, pageOption } from '../../../console/src/chart-option';
import {
  accuracyNotes,
  overlayOf,
  percentChange,
  previousSeries,
  withChange,
  withOverlay,
} from '../../../console/src/overlays';
import { type ExplorerResult, labelQueries, pageChart } from '../../../console/src/shape';
import { buildChartSpec, chartInputOf, type EChartsSpec, type TableSpec } from '../../../shared/charts/spec';

/**
 * The explorer's comparison and forecast over the builder's chart and table, and an alert history
 * entry's top contributors (console/src/overlays.ts, alerts-shape.ts). Every expectation is
 * computed here from the raw figures below.
 */
const NOW: Record<string, number[]> = { S3: [100.25, 140.5], EC2: [400, 360.75] };
const BEFORE: Record<string, number[]> = { S3: [80, 90.5], EC2: [420.5, 380] };
const MONTHS = ['2026-09-01', '2026-10-01'];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const usd = (x: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 }).format(x);

const query = (raw: Record<string, number[]>, dates: string[]) => ({
  name: 'a',
  type: 'cost',
  alias: null,
  unit: 'USD',
  currency: 'USD',
  total: sum(Object.values(raw).flat()),
  series: Object.entries(raw).map(([service, values]) => ({
    group: { service },
    points: values.map((value, i) => ({ date: dates[i]!, value })),
    total: sum(values),
  })),
});

/** A forecast of S3's November: 300 (80 %: 270–330, 95 %: 250–350), and its backtest. */
const FORECAST = { date: '2026-11-01', value: 300, lower80: 270, upper80: 330, lower95: 250, upper95: 350 };
const ACCURACY = {
  horizonDays: 30,
  origins: 84,
  from: '2026-07-01',
  to: '2026-09-22',
  mape: 0.1,
  wape: 0.08,
  totalError: { median: 0.0625, p90: 0.14 },
  mase: 0.7,
  relativeMae: 0.8,
  coverage80: 0.79,
  coverage95: 0.94,
};

function result(o: { compare?: boolean; forecast?: boolean } = {}): ExplorerResult {
  const q = query(NOW, MONTHS);
  if (o.forecast)
    q.series[0] = {
      ...q.series[0]!,
      forecast: [FORECAST],
      forecastAccuracy: {
        method: 'ets',
        history: { from: '2025-10-01', to: '2026-10-30', days: 395 },
        accuracy: ACCURACY,
        fallback: null,
      },
    } as (typeof q.series)[number];
  return {
    period: { startDate: '2026-09-01', endDate: '2026-10-31', aggBy: 'Month' },
    queries: [q],
    ...(o.compare
      ? {
          comparison: {
            period: { startDate: '2026-07-01', endDate: '2026-08-31', aggBy: 'Month' },
            queries: [query(BEFORE, ['2026-07-01', '2026-08-01'])],
          },
        }
      : {}),
    dataThrough: '2026-10-30',
    currency: 'USD',
  };
}
const ASKED = [{ type: 'cost', name: 'a', metricId: 'cost', groupBy: 'service' }];

const spec = (r: ExplorerResult, chartType: 'BAR' | 'LINE') =>
  buildChartSpec(chartInputOf(labelQueries(r, ASKED), { title: 'Cost', chartType })) as EChartsSpec;

describe("the explorer's comparison", () => {
  it("draws a stack's previous period as one dashed total line, bucket by bucket", () => {
    const r = result({ compare: true });
    const o = withOverlay(spec(r, 'BAR').option, overlayOf(r, ASKED)!);
    const dashed = o.series.filter((s: { lineStyle?: { type?: string } }) => s.lineStyle?.type === 'dashed');
    expect(dashed).toHaveLength(1);
    expect(dashed[0].name).toBe('Previous period (total)');
    expect(dashed[0].data).toEqual([0, 1].map((i) => BEFORE.S3![i]! + BEFORE.EC2![i]!));
  });

  it('draws each series of a line chart beside its own previous period, in its colour', () => {
    const r = result({ compare: true });
    const o = withOverlay(spec(r, 'LINE').option, overlayOf(r, ASKED)!);
    const byName = Object.fromEntries(o.series.map((s: { name: string }) => [s.name, s]));
    expect(byName['S3 (previous period)'].data).toEqual(BEFORE.S3);
    expect(byName['EC2 (previous period)'].data).toEqual(BEFORE.EC2);
    const s3Index = o.series.findIndex((s: { name: string }) => s.name === 'S3');
    expect(byName['S3 (previous period)'].lineStyle.color).toBe(o.color[s3Index]);
  });

  it('adds the previous total, the change and the % change to every row and the total', () => {
    const r = result({ compare: true });
    const t = pageChart(r, { queries: ASKED }, { title: 'Cost', chartType: 'TABLE' });
    const current = chartInputOf(labelQueries(r, ASKED), { title: 'Cost', chartType: 'TABLE' }).series;
    const out = withChange(t.spec as TableSpec, current, previousSeries(r, ASKED)!, t.format);
    expect(out.columns.slice(-4)).toEqual(['Total', 'Previous period', 'Change', '% change']);
    const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
    const signed = (x: number) => (x > 0 ? `+${usd(x)}` : usd(x));
    for (const name of ['S3', 'EC2']) {
      const row = out.rows.find((x) => x[0] === name)!;
      const now = sum(NOW[name]!);
      const before = sum(BEFORE[name]!);
      expect(row.slice(-3)).toEqual([usd(before), signed(now - before), pct(now, before)]);
    }
    const now = sum(Object.values(NOW).flat());
    const before = sum(Object.values(BEFORE).flat());
    expect(out.totalRow!.slice(-3)).toEqual([usd(before), signed(now - before), pct(now, before)]);
    expect(percentChange(5, 0)).toBe('–');
  });
});

describe("the explorer's forecast", () => {
  it("adds the forecast's buckets to the axis, a dotted line and its 80 % and 95 % bands stacked on the lower bound", () => {
    const r = result({ forecast: true });
    const o = withOverlay(spec(r, 'LINE').option, overlayOf(r, ASKED)!);
    expect(o.xAxis.data).toEqual([...MONTHS, FORECAST.date]);
    const line = o.series.find((s: { name: string; id?: string }) => s.name === 'S3 forecast' && !s.id);
    expect(line.lineStyle.type).toBe('dotted');
    expect(line.data[2]).toMatchObject(FORECAST);
    const band = (part: string) =>
      o.series.find((s: { id?: string }) => s.id === `${BAND_ID}0:${part}`).data[2];
    expect(band('base')).toBe(FORECAST.lower95);
    expect(band('95-low') + band('base')).toBe(FORECAST.lower80);
    expect(band('80') + band('95-low') + band('base')).toBe(FORECAST.upper80);
    expect(band('95-high') + band('80') + band('95-low') + band('base')).toBe(FORECAST.upper95);
    // The actual series keep their figures, with nothing in the forecast's bucket.
    expect(o.series.find((s: { name: string }) => s.name === 'S3').data).toEqual([...NOW.S3!, null]);
  });

  it('says the interval in the tooltip and leaves the bands out of it', () => {
    const r = result({ forecast: true });
    const s = spec(r, 'LINE');
    const input = chartInputOf(labelQueries(r, ASKED), { title: 'Cost', chartType: 'LINE' });
    const o = pageOption(
      { ...s, option: withOverlay(s.option, overlayOf(r, ASKED)!) },
      figureFormat(input),
      800,
    );
    const text = o.tooltip.formatter([
      { seriesName: 'S3 forecast', value: 300, data: FORECAST, axisValueLabel: 'Nov 2026' },
      { seriesName: 'S3 forecast', value: 250, seriesId: `${BAND_ID}0:base` },
    ]);
    expect(text).toBe(`Nov 2026<br/>S3 forecast: ${usd(300)} (80%: ${usd(270)} to ${usd(330)})`);
  });

  it("states each series' measured accuracy and where a partly actual month closes", () => {
    const r = result({ forecast: true });
    expect(accuracyNotes(r, ASKED, 'USD')).toEqual([
      'S3: within 6.3% on 30-day totals over the last 12 weeks (exponential smoothing; 9 in 10 within 14.0%).',
    ]);
    const open = result({ forecast: true });
    const s3 = open.queries[0]!.series[0]!;
    s3.forecast = [
      {
        ...FORECAST,
        date: '2026-10-01',
        actual: 100,
        bucketTotal: { ...FORECAST, value: 400, lower80: 370, upper80: 430 },
      },
    ];
    s3.forecastAccuracy = {
      ...s3.forecastAccuracy!,
      accuracy: null,
      fallback: { reason: 'short-history', detail: '41 days of history, under 56' },
    };
    expect(accuracyNotes(open, ASKED, 'USD')).toEqual([
      `S3: 41 days of history, under 56 (exponential smoothing; accuracy not measured). Oct 2026 will close at ${usd(400)}, 80% between ${usd(370)} and ${usd(430)}.`,
    ]);
  });
});

describe("an alert history entry's top contributors", () => {
  const entry = (rootCauses?: unknown) =>
    ({
      alertId: 'al_1',
      evaluatedAt: '2026-11-20T06:00:00Z',
      evaluatedDay: '2026-11-19',
      values: { spend: 1300 },
      triggered: true,
      suppressedBy: null,
      notificationId: 'ntf_1',
      ...(rootCauses === undefined ? {} : { rootCauses }),
    }) as AlertEvaluation;
  const before = { S3: 200, EC2: 800 };
  const after = { S3: 500, EC2: 760 };

  it('reads them as the messages compute them and words them as the messages do', () => {
    const change = after.S3 + after.EC2 - before.S3 - before.EC2;
    const causes = historyCauses(
      entry({
        dimension: 'service',
        query: 'Spend',
        period: { start: '2026-11-19', end: '2026-11-19' },
        baseline: { start: '2026-11-18', end: '2026-11-18', label: 'the day before' },
        before: before.S3 + before.EC2,
        after: after.S3 + after.EC2,
        change,
        top: (['S3', 'EC2'] as const).map((k) => ({
          label: k,
          before: before[k],
          after: after[k],
          change: after[k] - before[k],
          changePercent: ((after[k] - before[k]) / before[k]) * 100,
          share: ((after[k] - before[k]) / change) * 100,
        })),
        explained: 100,
      }),
      'USD',
    );
    expect(causes!.heading).toBe(
      'Top contributors by service (Spend: $1,260 against $1,000 for the day before, +$260; these explain 100.0% of the change)',
    );
    expect(causes!.lines).toEqual([
      'S3: $200 → $500 (+$300, +150.0%; 115.4% of the change)',
      'EC2: $800 → $760 (−$40.00, -5.0%; -15.4% of the change)',
    ]);
  });

  it('reads a list of dimension values with current and baseline figures, and nothing when there is none', () => {
    const causes = historyCauses(
      entry([{ values: { service: 'S3', region: 'eu-west-1' }, current: 500, baseline: 200, change: 300 }]),
      'USD',
    );
    expect(causes).toEqual({ heading: null, lines: ['S3 / eu-west-1: $200 → $500 (+$300, +150.0%)'] });
    expect(historyCauses(entry(), 'USD')).toBeNull();
    expect(historyCauses(entry([]), 'USD')).toBeNull();
    expect(historyCauses(entry('junk'), 'USD')).toBeNull();
  });
});
