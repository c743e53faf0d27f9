import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildChartSpec,
  type ChartSeries,
  type EChartsSpec,
  seriesFromQueries,
  shapeSeries,
  stampLines,
  type TableSpec,
} from '../../../shared/charts/spec';
import { tableToSvg } from '../../../shared/charts/table-svg';
import { FONT_FILES } from '../../../shared/domain/reports/render/assets';

/** The pure chart-spec builder: display options, chart kinds, stamps, and the shipped font's glyphs. */
const dates = ['2024-10-01', '2024-10-02', '2024-10-03'];
const s = (name: string, values: (number | null)[]): ChartSeries => ({
  name,
  points: values.map((value, i) => ({ date: dates[i]!, value })),
  total: values.reduce<number>((a, x) => a + (x ?? 0), 0),
});
const series = [s('a', [1, 2, 3]), s('b', [10, 0, 0]), s('c', [0, 0, 0]), s('d', [-4, 1, 0])];
const base = { title: 'T', currency: 'USD' as string, stamp: ['Period x'] };

describe('shapeSeries', () => {
  it('keeps the topN largest by |total| in their order and sums the rest into Other', () => {
    const out = shapeSeries(series, { topN: 2 });
    expect(out.map((x) => x.name)).toEqual(['a', 'b', 'Other']);
    expect(out[2]).toMatchObject({ total: -3, other: true });
    expect(out[2]!.points.map((p) => p.value)).toEqual([-4, 1, 0]);
  });

  it('merges an Other the engine already summed instead of ranking it', () => {
    const engineOther = { ...s('Other', [5, 5, 5]), other: true as const };
    const out = shapeSeries([...series, engineOther], { topN: 3 });
    expect(out.map((x) => x.name)).toEqual(['a', 'b', 'd', 'Other']);
    expect(out[3]!.total).toBe(15);
    // Within topN: nothing changes, the engine's Other stays.
    expect(shapeSeries([series[0]!, engineOther], { topN: 3 })).toHaveLength(2);
  });

  it('drops series with nothing but zeros or nulls under hideEmptyRows', () => {
    expect(shapeSeries(series, { hideEmptyRows: true }).map((x) => x.name)).toEqual(['a', 'b', 'd']);
    expect(shapeSeries(series, {}).map((x) => x.name)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('buildChartSpec', () => {
  it('stacks BAR and AREA, not LINE, and puts the total and stamp under the title', () => {
    const bar = buildChartSpec({ ...base, chartType: 'BAR', series }) as EChartsSpec;
    expect(bar.option.series.map((x: { type: string; stack?: string }) => [x.type, x.stack])).toEqual(
      series.map(() => ['bar', 'total']),
    );
    expect(bar.option.title[0].subtext).toBe('Total $13.00\nPeriod x');
    const area = buildChartSpec({ ...base, chartType: 'AREA', series }) as EChartsSpec;
    expect(area.option.series[0]).toMatchObject({ type: 'line', stack: 'total', areaStyle: {} });
    const line = buildChartSpec({
      ...base,
      chartType: 'LINE',
      series,
      displayOptions: { showTotal: false, precision: 0 },
    }) as EChartsSpec;
    expect(line.option.series[0].stack).toBeUndefined();
    expect(line.option.title[0].subtext).toBe('Period x');
  });

  it('wraps a long stamp line (the conversion) at spaces, so it stays inside the 800 px image, and makes room for it', () => {
    const rates = stampLines({
      period: { startDate: '2026-10-01', endDate: '2026-10-31' },
      comparisonPeriod: null,
      dataThrough: '2026-11-25',
      currency: 'USD',
      requestedCurrency: 'USD',
      conversion: {
        from: ['EUR'],
        to: 'USD',
        source: 'Synthetic demo rates (generated, not ECB figures)',
        rates: { from: '2026-10-01', to: '2026-10-30' },
      },
    });
    expect(rates[1]!.length).toBeGreaterThan(108);
    const spec = buildChartSpec({ ...base, stamp: rates, chartType: 'BAR', series }) as EChartsSpec;
    const lines = String(spec.option.title[0].subtext).split('\n');
    expect(lines.every((l) => l.length <= 108)).toBe(true);
    // Nothing lost: the wrapped lines read back as the stamp.
    expect(lines.slice(1).join(' ')).toBe(rates.join(' '));
    expect(spec.option.grid.top).toBe(56 + 15 * lines.length);
    expect(lines.length).toBe(1 + rates.length + 1);
  });

  it('says "No data for this period" in the plot only when no series has a value', () => {
    const empty = buildChartSpec({ ...base, chartType: 'BAR', series: [] }) as EChartsSpec;
    expect(empty.option.title.map((t: { text: string }) => t.text)).toEqual(['T', 'No data for this period']);
    const nulls = buildChartSpec({
      ...base,
      chartType: 'LINE',
      series: [{ name: 'a', total: null, points: [{ date: '2024-01-01', value: null }] }],
    }) as EChartsSpec;
    expect(nulls.option.title).toHaveLength(2);
    const full = buildChartSpec({ ...base, chartType: 'BAR', series }) as EChartsSpec;
    expect(full.option.title.map((t: { text: string }) => t.text)).toEqual(['T']);
  });

  it('leaves empty buckets after the data cut-off undrawn', () => {
    const spec = buildChartSpec({
      ...base,
      chartType: 'LINE',
      series: [s('a', [1, 2, 0]), s('b', [1, 0, 3])],
      dataThrough: '2024-10-01',
    }) as EChartsSpec;
    expect(spec.option.series.map((x: { data: unknown[] }) => x.data)).toEqual([
      [1, 2, null],
      [1, null, 3],
    ]);
  });

  it('draws WATERFALL steps from the running sum, ending on the total', () => {
    const spec = buildChartSpec({
      ...base,
      chartType: 'WATERFALL',
      series: [s('a', [5, 0, 0]), s('b', [3, 0, 0]), s('d', [-2, 0, 0])],
    }) as EChartsSpec;
    const [offset, up, down, total] = spec.option.series as { data: unknown[] }[];
    expect(spec.option.xAxis.data).toEqual(['a', 'b', 'd', 'Total']);
    expect(offset!.data).toEqual([0, 5, 6, 0]);
    expect(up!.data).toEqual([5, 3, '-', '-']);
    expect(down!.data).toEqual(['-', '-', 2, '-']);
    expect(total!.data).toEqual(['-', '-', '-', 6]);
  });

  it('builds a TABLE sorted by total with bucket columns, Other last and a total row', () => {
    const t = buildChartSpec({
      ...base,
      chartType: 'TABLE',
      series: [...series, { ...s('Other', [1, 1, 1]), other: true }],
      displayOptions: { precision: 1, hideEmptyRows: true },
    }) as TableSpec;
    expect(t.columns).toEqual(['Series', ...dates, 'Total']);
    expect(t.rows.map((r) => r[0])).toEqual(['b', 'a', 'd', 'Other']);
    expect(t.rows[2]).toEqual(['d', '-$4.0', '$1.0', '$0.0', '-$3.0']);
    expect(t.totalRow).toEqual(['Total', '$8.0', '$4.0', '$4.0', '$16.0']);
    const svg = tableToSvg(t).svg;
    expect(svg).toContain('>-$3.0</text>');
    expect(svg.startsWith('<svg')).toBe(true);
  });

  it('formats every currency with its sign', () => {
    for (const [currency, sign] of [
      ['USD', '$'],
      ['EUR', '€'],
      ['GBP', '£'],
      ['JPY', '¥'],
      ['KRW', '₩'],
    ] as const) {
      const t = buildChartSpec({
        ...base,
        currency,
        chartType: 'TABLE',
        series: [s('a', [1000, 0, 0])],
      }) as TableSpec;
      expect(t.rows[0]!.at(-1)).toContain(sign);
    }
  });
});

describe('stampLines', () => {
  const period = { startDate: '2024-10-01', endDate: '2024-10-31' };
  it('states the period, the cut-off and the currency, and the rates when converted', () => {
    expect(
      stampLines({ period, dataThrough: '2024-10-19', currency: 'USD', requestedCurrency: 'USD' }),
    ).toEqual(['Period 2024-10-01 to 2024-10-31 · data through 2024-10-19', 'Figures in USD, not converted']);
    expect(stampLines({ period, dataThrough: null, currency: 'USD', requestedCurrency: 'EUR' })[1]).toBe(
      'Figures in USD (billing currency, not converted to EUR)',
    );
    expect(
      stampLines({
        period,
        dataThrough: '2024-10-19',
        currency: 'EUR',
        requestedCurrency: 'EUR',
        conversion: {
          from: ['USD', 'CAD'],
          to: 'EUR',
          source: 'European Central Bank',
          rates: { from: '2024-10-01', to: '2024-10-18' },
        },
      })[1],
    ).toBe(
      'Figures in EUR, converted from USD, CAD at European Central Bank rates of each charge day (published 2024-10-01 to 2024-10-18)',
    );
  });
});

describe('seriesFromQueries', () => {
  it('names series by group values, Other, or the query when ungrouped or several', () => {
    const pts = [{ date: '2024-10-01', value: 1 }];
    const out = seriesFromQueries([
      {
        name: 'a',
        alias: null,
        unit: null,
        currency: 'USD',
        series: [
          { group: { provider: 'AWS', region: null }, points: pts, total: 1 },
          { group: { provider: 'Other', region: 'Other' }, points: pts, total: 2, other: true },
        ],
      },
    ]);
    expect(out.map((x) => [x.name, x.other])).toEqual([
      ['AWS / (none)', undefined],
      ['Other', true],
    ]);
    const two = seriesFromQueries([
      {
        name: 'a',
        alias: 'Spend',
        unit: null,
        currency: 'USD',
        series: [{ group: {}, points: pts, total: 1 }],
      },
      {
        name: 'b',
        alias: null,
        unit: null,
        currency: 'USD',
        series: [{ group: { s: 'x' }, points: pts, total: 1 }],
      },
    ]);
    expect(two.map((x) => x.name)).toEqual(['Spend', 'b: x']);
  });
});

/** Glyph ids of code points from the font's cmap (format 4), read here without a font library. */
function glyphIds(ttf: Buffer, codePoints: number[]): number[] {
  const numTables = ttf.readUInt16BE(4);
  let cmap = -1;
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + 16 * i;
    if (ttf.toString('latin1', rec, rec + 4) === 'cmap') cmap = ttf.readUInt32BE(rec + 8);
  }
  expect(cmap).toBeGreaterThan(0);
  let sub = -1;
  for (let i = 0; i < ttf.readUInt16BE(cmap + 2); i++) {
    const rec = cmap + 4 + 8 * i;
    const off = cmap + ttf.readUInt32BE(rec + 4);
    if (ttf.readUInt16BE(rec) === 3 && ttf.readUInt16BE(rec + 2) === 1 && ttf.readUInt16BE(off) === 4)
      sub = off;
  }
  expect(sub).toBeGreaterThan(0);
  const segX2 = ttf.readUInt16BE(sub + 6);
  const ends = sub + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const ranges = deltas + segX2;
  return codePoints.map((cp) => {
    for (let i = 0; i < segX2 / 2; i++) {
      if (ttf.readUInt16BE(ends + 2 * i) < cp) continue;
      const start = ttf.readUInt16BE(starts + 2 * i);
      if (start > cp) return 0;
      const delta = ttf.readInt16BE(deltas + 2 * i);
      const rangeOffset = ttf.readUInt16BE(ranges + 2 * i);
      if (!rangeOffset) return (cp + delta) & 0xffff;
      const g = ttf.readUInt16BE(ranges + 2 * i + rangeOffset + 2 * (cp - start));
      return g ? (g + delta) & 0xffff : 0;
    }
    return 0;
  });
}

describe('the shipped fonts', () => {
  it.each(Object.values(FONT_FILES))('%s has a glyph for $ € £ ¥ ₩ and the figures', (file) => {
    const ttf = readFileSync(join(__dirname, '..', '..', '..', 'assets', 'fonts', file));
    expect(ttf.readUInt32BE(0)).toBe(0x00010000); // TrueType outlines
    const ids = glyphIds(
      ttf,
      [...'$€£¥₩0123456789,.-%·–'].map((c) => c.codePointAt(0)!),
    );
    for (const id of ids) expect(id).toBeGreaterThan(0);
    // A code point DejaVu Sans lacks (a CJK ideograph) reads as no glyph: the parser can say no.
    expect(glyphIds(ttf, [0x4e00])).toEqual([0]);
  });
});
