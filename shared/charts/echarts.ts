import { bucketLabel, formatAxis, formatFigure } from './figures';
import type { ChartInput, ChartPoint, ChartSeries, EChartsSpec } from './model';
import { currencyTotals, tidy, totalLine } from './series';

// The ECharts option of a BAR, LINE, AREA or WATERFALL chart.

/** Legend names are cut to this many characters (with an ellipsis). */
export const LEGEND_MAX_CHARS = 32;
/** The width the legend wraps in (the 800 px chart less its margins). */
const CHART_PLOT_WIDTH = 740;

/** Characters of 11 px DejaVu Sans (0.62 em each) that fit across the 800 px chart's title. */
const SUBTEXT_MAX_CHARS = 108;

/** A line broken at spaces into lines of at most `max` characters (a longer word keeps its line). */
export function wrapWords(line: string, max: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current && current.length + 1 + word.length > max) {
      out.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  out.push(current);
  return out;
}

const PALETTE = [
  '#5470c6',
  '#91cc75',
  '#fac858',
  '#ee6666',
  '#73c0de',
  '#3ba272',
  '#fc8452',
  '#9a60b4',
  '#ea7ccc',
];
const FONT = 'DejaVu Sans';

/** True when some series has a point with a value (null points are buckets without data). */
function hasData(series: readonly ChartSeries[]): boolean {
  return series.some((s) => s.points.some((p) => p.value !== null) || (s.total ?? 0) !== 0);
}

/** The options every chart shares: palette, font, title and stamp, grid and value axis. */
function baseOption(input: ChartInput, series: readonly ChartSeries[], subtext: string) {
  return {
    animation: false,
    backgroundColor: '#ffffff',
    color: PALETTE,
    textStyle: { fontFamily: FONT },
    title: [
      {
        text: input.title,
        subtext,
        left: 16,
        top: 8,
        textStyle: { fontSize: 16, fontWeight: 'bold', color: '#222' },
        subtextStyle: { fontSize: 11, color: '#555', lineHeight: 15 },
      },
      // Nothing to draw: say so in the plot, rather than an empty box over a bare axis.
      ...(hasData(series)
        ? []
        : [
            {
              text: 'No data for this period',
              left: 'center',
              top: 'middle',
              textStyle: { fontSize: 14, fontWeight: 'normal', color: '#888' },
            },
          ]),
    ],
    // The axis labels inside the grid's box (ECharts measures DejaVu Sans narrower than resvg
    // draws it: with labels outside the box, "$500" lost its "$" at the image's left edge).
    grid: {
      outerBoundsMode: 'same',
      outerBoundsContain: 'axisLabel',
      left: 20,
      right: 44,
      top: input.title || subtext ? 56 + 15 * subtext.split('\n').length : 24,
      bottom: 56,
    },
    yAxis: {
      type: 'value',
      axisLabel: { formatter: (x: number) => formatAxis(x, input.currency) },
      splitLine: { lineStyle: { color: '#e6e6e6' } },
    },
  };
}

/** The spec of a chart drawn by ECharts (every type but TABLE), from the shaped series. */
export function echartsSpec(
  input: ChartInput,
  series: ChartSeries[],
  precision: number,
  showTotal: boolean,
): EChartsSpec {
  const subtext = [
    ...(showTotal ? [totalLine(series, input.currency, precision, input.unit)] : []),
    ...input.stamp.flatMap((line) => wrapWords(line, SUBTEXT_MAX_CHARS)),
  ].join('\n');
  const base = baseOption(input, series, subtext);
  const option =
    input.chartType === 'WATERFALL'
      ? waterfallOption(input, series, precision)
      : seriesOption(input, series, base.grid);
  // Every chart: the common options, then the kind's own (which override them).
  return { kind: 'echarts', title: input.title, stamp: input.stamp, option: { ...base, ...option } };
}

/** A labelled bar of the waterfall's stack; `sign` turns the stored magnitude back into the step's value. */
function stepBar(
  valueFmt: (x: number) => string,
  name: string,
  color: string,
  show: boolean,
  position: 'top' | 'bottom',
  sign: 1 | -1,
  data: (number | string)[],
) {
  return {
    type: 'bar',
    stack: 'w',
    name,
    itemStyle: { color },
    label: {
      show,
      position,
      formatter: (p: { value: number }) => valueFmt(sign === 1 ? p.value : -p.value),
    },
    data,
  };
}

/** WATERFALL: each series' total as a step from the running sum, then the total bar. */
function waterfallOption(input: ChartInput, series: ChartSeries[], precision: number) {
  const split = currencyTotals(series);
  const valueFmt = (x: number) => formatFigure(x, input.currency, precision, input.unit);
  const names: string[] = [];
  const offsets: number[] = [];
  const ups: (number | string)[] = [];
  const downs: (number | string)[] = [];
  let running = 0;
  for (const s of series) {
    const v = s.total ?? 0;
    names.push(s.name);
    offsets.push(tidy(Math.min(running, running + v)));
    ups.push(v >= 0 ? tidy(v) : '-');
    downs.push(v < 0 ? tidy(-v) : '-');
    // Steps of different currencies do not stack: each starts from zero, and there is no total bar.
    running = split ? 0 : tidy(running + v);
  }
  if (!split) {
    names.push('Total');
    offsets.push(Math.min(0, running));
  }
  return {
    legend: { show: false },
    xAxis: {
      type: 'category',
      data: names,
      axisLabel: {
        interval: 0,
        rotate: names.length > 6 ? 30 : 0,
        width: names.length > 6 ? 130 : Math.max(60, 700 / names.length),
        overflow: 'truncate',
      },
    },
    series: [
      {
        type: 'bar',
        stack: 'w',
        itemStyle: { color: 'transparent' },
        data: offsets,
        silent: true,
      },
      stepBar(valueFmt, 'Increase', '#5470c6', names.length <= 12, 'top', 1, split ? ups : [...ups, '-']),
      stepBar(
        valueFmt,
        'Decrease',
        '#3ba272',
        names.length <= 12,
        'bottom',
        -1,
        split ? downs : [...downs, '-'],
      ),
      ...(split
        ? []
        : [
            stepBar(valueFmt, 'Total', '#555', true, 'top', 1, [
              ...names.slice(0, -1).map(() => '-'),
              Math.abs(running),
            ]),
          ]),
    ],
  };
}

/** BAR, LINE or AREA: a series per line or stacked bar over the buckets, the legend below. */
function seriesOption(input: ChartInput, series: ChartSeries[], grid: ReturnType<typeof baseOption>['grid']) {
  const dates = series[0]?.points.map((p) => p.date) ?? [];
  const kind = input.chartType === 'BAR' ? 'bar' : 'line';
  // The legend wraps below the plot: room for each of its rows (11 px text, 0.62 em a character).
  const legendName = (n: string) =>
    n.length > LEGEND_MAX_CHARS ? `${n.slice(0, LEGEND_MAX_CHARS - 1)}…` : n;
  let rows = 1;
  let used = 0;
  for (const s of series) {
    const w = legendName(s.name).length * 11 * 0.62 + 35;
    if (used && used + w > CHART_PLOT_WIDTH * 0.82) {
      rows++;
      used = 0;
    }
    used += w;
  }
  const through = input.dataThrough;
  const drawn = (p: ChartPoint) => (through && p.date.slice(0, 10) > through && !p.value ? null : p.value);
  return {
    // ECharts measures text narrower than DejaVu Sans draws it: wrap the legend in less width.
    legend: {
      bottom: 8,
      left: 'center',
      width: Math.round(CHART_PLOT_WIDTH * 0.82),
      type: 'plain',
      itemGap: 18,
      textStyle: { fontSize: 11 },
      formatter: legendName,
    },
    grid: { ...grid, bottom: 40 + 20 * rows },
    xAxis: {
      type: 'category',
      data: dates.map(bucketLabel),
      boundaryGap: kind === 'bar',
      axisLabel: { hideOverlap: true },
    },
    series: series.map((s) => ({
      type: kind,
      name: s.name,
      ...(input.chartType !== 'LINE' ? { stack: 'total' } : {}),
      ...(input.chartType === 'AREA' ? { areaStyle: { opacity: 0.6 } } : {}),
      ...(kind === 'line' ? { showSymbol: dates.length <= 31, symbolSize: 4 } : {}),
      data: s.points.map(drawn),
    })),
  };
}
