import { credentialHolder } from '../../../console/src/api';
import { figureFormat, NARROW_PX, pageOption, titleLines } from '../../../console/src/chart-option';
import { type ExplorerResult, labelQueries, matchingName } from '../../../console/src/shape';

import { metricWords, monthLabel, presetWords } from '../../../console/src/words';
import { buildChartSpec, chartInputOf, type EChartsSpec } from '../../../shared/charts/spec';
import { DATE_PRESETS } from '../../../shared/enums';

/** The console's words and its page version of a builder chart (console/src/words.ts, chart-option.ts). */
const answer = (alias: string | null, groups: string[]): ExplorerResult => ({
  period: { startDate: '2026-09-01', endDate: '2026-10-31', aggBy: 'Month' },
  dataThrough: '2026-10-30',
  currency: 'USD',
  queries: [
    {
      name: 'a',
      type: 'cost',
      alias,
      unit: null,
      currency: 'USD',
      total: null,
      series: (groups.length ? groups : [null]).map((g, i) => ({
        group: (g === null ? {} : { provider: g }) as Record<string, string | null>,
        points: [
          { date: '2026-09-01', value: 1000.123456 * (i + 1) },
          { date: '2026-10-01', value: 12823.880362458827 * (i + 1) },
        ],
        total: 13824.003818458827 * (i + 1),
      })),
    },
  ],
});

const chartOf = (r: ExplorerResult, chartType: 'BAR' | 'WATERFALL' = 'BAR') => {
  const input = chartInputOf(labelQueries(r, [{ type: 'cost', name: 'a', metricId: 'net_amortized_cost' }]), {
    title: 'Spend',
    chartType,
  });
  return { spec: buildChartSpec(input) as EChartsSpec, format: figureFormat(input) };
};

describe('words for the API codes', () => {
  it('names every preset in words and a metric as a sentence', () => {
    expect(presetWords('TRAILING_90_DAYS')).toBe('Last 90 days');
    expect(presetWords('LAST_INVOICE_MONTH')).toBe('Last invoice month');
    for (const p of DATE_PRESETS) expect(presetWords(p)).not.toMatch(/_|[A-Z]{2}/);
    expect(metricWords('net_amortized_cost')).toBe('Net amortized cost');
    expect(monthLabel('2026-05-01')).toBe('May 2026');
    expect(monthLabel('2026-05-04')).toBe('2026-05-04');
  });
});

describe('a builder chart in a page', () => {
  it('names a lone query by its metric, keeps an alias, and says figures in money in the tooltip', () => {
    const { spec, format } = chartOf(answer(null, []));
    expect(spec.option.series.map((s: { name: string }) => s.name)).toEqual(['Net amortized cost']);
    expect(chartOf(answer('Shared cost', [])).spec.option.series[0].name).toBe('Shared cost');
    const o = pageOption(spec, format, 800, 'Month');
    expect(o.xAxis.data).toEqual(['Sep 2026', 'Oct 2026']);
    const tip = o.tooltip.formatter([
      { seriesName: 'Net amortized cost', value: 12823.880362458827, axisValueLabel: 'Oct 2026', marker: '' },
    ]);
    expect(tip).toBe('Oct 2026<br/>Net amortized cost: $12,823.88');
  });

  it('moves the title and stamp out of the canvas and the legend to one row under the plot', () => {
    const { spec, format } = chartOf(answer(null, ['AWS', 'Google Cloud']));
    const o = pageOption(spec, format, 320);
    expect(o.title).toEqual([]);
    expect(titleLines(spec)).toEqual({
      title: 'Spend',
      lines: [
        'Total $41,472.01',
        'Period 2026-09-01 to 2026-10-31 · data through 2026-10-30',
        'Figures in USD, not converted',
      ],
    });
    expect(o.legend).toMatchObject({ type: 'scroll', bottom: 0 });
    expect(o.grid.bottom).toBeGreaterThanOrEqual(28);
  });

  it("slants a narrow waterfall's step names and leaves out its bar labels", () => {
    const { spec, format } = chartOf(answer(null, ['a1', 'a2', 'a3', 'a4', 'a5']), 'WATERFALL');
    const narrow = pageOption(spec, format, NARROW_PX - 210);
    expect(narrow.xAxis.axisLabel.rotate).toBeGreaterThan(0);
    expect(narrow.series.filter((s: { label?: { show: boolean } }) => s.label?.show)).toEqual([]);
    const wide = pageOption(spec, format, 1400);
    expect(wide.xAxis.axisLabel.rotate).toBe(0);
  });
});

describe('the dashboards list and the header', () => {
  it('searches names in any case', () => {
    const items = [{ name: 'Board 51' }, { name: 'Other' }];
    expect(matchingName(items, ' board 5')).toEqual([{ name: 'Board 51' }]);
    expect(matchingName(items, '')).toEqual(items);
  });

  it("reads a JWT's subject and organisation; a key says nothing", () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const jwt = `${b64({ alg: 'none' })}.${b64({ sub: 'user_1', org_id: 'org_1', email: 'a@b.c' })}.sig`;
    expect(credentialHolder(jwt)).toEqual({ kind: 'jwt', sub: 'user_1', org: 'org_1', email: 'a@b.c' });
    expect(credentialHolder('ak_123')).toEqual({ kind: 'key' });
  });
});
