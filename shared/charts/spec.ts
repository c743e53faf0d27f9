/**
 * The chart-spec builder: series as the query engine answers them → an ECharts option (BAR, LINE,
 * AREA, WATERFALL) or a table (TABLE). Pure: no Node, AWS or DOM import, so the server (which
 * rasterises the option to PNG) and a web console draw the same chart from the same input.
 *
 * Display options (the explorer's `displayOptions`): `hideEmptyRows` drops series without a
 * non-zero figure; `topN` keeps the N largest series by |total| and sums the rest into one
 * `Other` series; `showTotal` (default on) adds the total to the subtitle and a total row to a
 * table; `precision` is the number of decimals of every figure (default: 2).
 */

export const CHART_TYPES = ['BAR', 'LINE', 'AREA', 'WATERFALL', 'TABLE'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

export interface ChartPoint {
  /** The bucket's start, `YYYY-MM-DD` (or an ISO date-time for hourly buckets). */
  date: string;
  value: number | null;
  partial?: true;
}

/** One series to draw: its label and points, and its total as the engine answered it. */
export interface ChartSeries {
  name: string;
  points: ChartPoint[];
  total: number | null;
  /** The engine's sum of the groups past its top N. */
  other?: true;
  /**
   * The series' own currency when the answer is split by billing currency (no currency asked of a
   * mixed organisation): series of different currencies are never summed into one figure.
   */
  currency?: string;
}

export interface ChartDisplayOptions {
  hideEmptyRows?: boolean | undefined;
  topN?: number | undefined;
  showTotal?: boolean | undefined;
  precision?: number | undefined;
}

export interface ChartInput {
  title: string;
  chartType: ChartType;
  series: ChartSeries[];
  /** ISO 4217 code of the figures, or null for a unit-less or mixed-currency result. */
  currency: string | null;
  /** A unit for non-currency figures (e.g. `GB-Mo`). */
  unit?: string | null;
  displayOptions?: ChartDisplayOptions | undefined;
  /** Lines printed under the title: the period, the data cut-off, the rates (see `stampLines`). */
  stamp: string[];
  /**
   * The data cut-off (`YYYY-MM-DD`): buckets that start after it and hold nothing are not drawn
   * (a gap, not a fall to zero).
   */
  dataThrough?: string | null;
}

/** What a chart states so a figure can be reproduced. */
export interface ChartStamp {
  period: { startDate: string; endDate: string };
  comparisonPeriod?: { startDate: string; endDate: string } | null;
  dataThrough: string | null;
  currency: string | null;
  requestedCurrency: string | null;
  /**
   * The conversion applied (the query engine's `conversion`): billing currencies converted, the
   * figures' currency, who published the rates and the publication days of the rates applied.
   * Absent or null when nothing was converted.
   */
  conversion?: {
    from: string[];
    to: string;
    source: string | null;
    rates: { from: string; to: string } | null;
  } | null;
}

export function stampLines(s: ChartStamp): string[] {
  const cmp = s.comparisonPeriod
    ? ` vs ${s.comparisonPeriod.startDate} to ${s.comparisonPeriod.endDate}`
    : '';
  const lines = [
    `Period ${s.period.startDate} to ${s.period.endDate}${cmp} · data through ${s.dataThrough ?? 'n/a (no recent data)'}`,
  ];
  const c = s.conversion;
  if (c?.rates)
    lines.push(
      `Figures in ${c.to}, converted from ${c.from.join(', ')} at ${c.source ?? 'reference'} rates of each charge day (published ${c.rates.from} to ${c.rates.to})`,
    );
  else if (s.requestedCurrency && s.currency && s.requestedCurrency !== s.currency)
    lines.push(`Figures in ${s.currency} (billing currency, not converted to ${s.requestedCurrency})`);
  else if (s.currency) lines.push(`Figures in ${s.currency}, not converted`);
  return lines;
}

/** Formats a figure in the chart's currency (or unit) with the chart's precision. */
export function formatFigure(
  x: number,
  currency: string | null,
  precision = 2,
  unit?: string | null,
): string {
  if (currency) {
    try {
      return new Intl.NumberFormat('en-US', {
        style: 'currency',
        currency,
        minimumFractionDigits: precision,
        maximumFractionDigits: precision,
      }).format(x);
    } catch {
      // An unknown code: fall through to a plain number with the code.
    }
  }
  const n = new Intl.NumberFormat('en-US', {
    minimumFractionDigits: precision,
    maximumFractionDigits: precision,
  }).format(x);
  const suffix = currency ?? unit;
  return suffix ? `${n} ${suffix}` : n;
}

/** Compact axis labels: 1.2K, 3.4M, in the currency's sign when it has one. */
export function formatAxis(x: number, currency: string | null): string {
  const abs = Math.abs(x);
  const [div, suffix] = abs >= 1e9 ? [1e9, 'B'] : abs >= 1e6 ? [1e6, 'M'] : abs >= 1e3 ? [1e3, 'K'] : [1, ''];
  const v = x / div;
  const digits = div === 1 ? (abs < 10 && abs !== Math.trunc(abs) ? 2 : 0) : 1;
  if (currency) {
    try {
      const s = new Intl.NumberFormat('en-US', {
        style: 'currency',
        currency,
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }).format(v);
      return `${s}${suffix}`;
    } catch {
      // fall through
    }
  }
  return `${v.toFixed(digits)}${suffix}`;
}

const OTHER = 'Other';
const sumOf = (xs: (number | null)[]) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
/** Sums without binary-float noise at cent level (figures are rounded where they are printed). */
const tidy = (x: number) => Math.round(x * 1e9) / 1e9;

/**
 * Applies `hideEmptyRows` and `topN` (the rest summed into `Other`, in the engine's bucket order;
 * one `Other` per currency when the series are split by billing currency).
 */
export function shapeSeries(series: ChartSeries[], opts: ChartDisplayOptions = {}): ChartSeries[] {
  let out = series;
  if (opts.hideEmptyRows)
    out = out.filter((s) => (s.total ?? 0) !== 0 || s.points.some((p) => (p.value ?? 0) !== 0));
  const n = opts.topN;
  const regular = out.filter((x) => !x.other);
  if (n && n > 0 && regular.length > n) {
    const ranked = [...regular].sort((a, b) => Math.abs(b.total ?? 0) - Math.abs(a.total ?? 0));
    const kept = new Set(ranked.slice(0, n));
    // The rest, with any `Other` the engine already summed, becomes one `Other` (per currency).
    const rest = out.filter((x) => !kept.has(x));
    const dates = out[0]?.points.map((p) => p.date) ?? [];
    const mixed = currenciesOf(out).length > 1;
    const others = (mixed ? currenciesOf(rest) : [undefined]).map((currency): ChartSeries => {
      const part = mixed ? rest.filter((x) => x.currency === currency) : rest;
      return {
        name: currency ? `${OTHER} (${currency})` : OTHER,
        points: dates.map((date, i) => ({
          date,
          value: tidy(sumOf(part.map((x) => x.points[i]?.value ?? 0))),
        })),
        total: tidy(sumOf(part.map((x) => x.total))),
        other: true,
        ...(currency ? { currency } : {}),
      };
    });
    out = [...regular.filter((x) => kept.has(x)), ...others];
  }
  return out;
}

/** The distinct currencies the series carry (split by billing currency), sorted. */
function currenciesOf(series: readonly ChartSeries[]): string[] {
  return [...new Set(series.map((s) => s.currency).filter((c): c is string => !!c))].sort();
}

/**
 * The totals of series split by billing currency, one per currency (sorted by code), or null when
 * the series are in one currency (or none): what `showTotal` prints instead of a 1:1 sum.
 */
export function currencyTotals(
  series: readonly ChartSeries[],
  bucket?: number,
): { currency: string; total: number }[] | null {
  const currencies = currenciesOf(series);
  if (currencies.length < 2) return null;
  return currencies.map((currency) => {
    const part = series.filter((s) => s.currency === currency);
    const values =
      bucket === undefined ? part.map((s) => s.total) : part.map((s) => s.points[bucket]?.value ?? 0);
    return { currency, total: tidy(sumOf(values)) };
  });
}

/** Totals per currency as one text (`$12.30 · €4.10`). */
function currencyTotalsText(
  totals: readonly { currency: string; total: number }[],
  precision: number,
): string {
  return totals.map((t) => formatFigure(t.total, t.currency, precision)).join(' · ');
}

/** The sum of the series' totals: the figure `showTotal` prints. */
export function grandTotal(series: ChartSeries[]): number {
  return tidy(sumOf(series.map((s) => s.total)));
}

/**
 * The line `showTotal` prints: `Total $12.30` for series in one currency, `Totals $12.30 · €4.10`
 * for series split by billing currency (never their 1:1 sum).
 */
export function totalLine(
  series: ChartSeries[],
  currency: string | null,
  precision: number,
  unit?: string | null,
): string {
  const split = currencyTotals(series);
  return split
    ? `Totals ${currencyTotalsText(split, precision)}`
    : `Total ${formatFigure(grandTotal(series), currency, precision, unit)}`;
}

export interface TableSpec {
  kind: 'table';
  title: string;
  stamp: string[];
  columns: string[];
  /** Right-aligned columns (figures). */
  numeric: boolean[];
  rows: string[][];
  /** The total row (when `showTotal`), drawn bold under the rows. */
  totalRow: string[] | null;
}

export interface EChartsSpec {
  kind: 'echarts';
  title: string;
  stamp: string[];
  // biome-ignore lint/suspicious/noExplicitAny: an ECharts option is open-ended JSON
  option: Record<string, any>;
}

export type ChartSpec = TableSpec | EChartsSpec;

/** Bucket columns a TABLE shows before it keeps to the totals only. */
export const TABLE_MAX_BUCKET_COLUMNS = 12;

const bucketLabel = (date: string) => (date.length > 10 ? date.slice(0, 16).replace('T', ' ') : date);

function tableSpec(
  input: ChartInput,
  series: ChartSeries[],
  precision: number,
  showTotal: boolean,
): TableSpec {
  const dates = series[0]?.points.map((p) => p.date) ?? [];
  const withBuckets = dates.length > 1 && dates.length <= TABLE_MAX_BUCKET_COLUMNS;
  const fmt = (x: number | null, currency = input.currency) =>
    x === null ? '–' : formatFigure(x, currency, precision, input.unit);
  const mixed = currencyTotals(series) !== null;
  const columns = ['Series', ...(withBuckets ? dates.map(bucketLabel) : []), 'Total'];
  const ordered = [
    ...series.filter((s) => !s.other).sort((a, b) => Math.abs(b.total ?? 0) - Math.abs(a.total ?? 0)),
    ...series.filter((s) => s.other),
  ];
  const rows = ordered.map((s) => [
    s.name,
    ...(withBuckets ? s.points.map((p) => fmt(p.value, s.currency ?? input.currency)) : []),
    fmt(s.total, s.currency ?? input.currency),
  ]);
  // Series split by billing currency: a total per currency in each cell, never their 1:1 sum.
  const totalCell = (bucket?: number) => {
    const split = mixed ? currencyTotals(series, bucket) : null;
    if (split) return currencyTotalsText(split, precision);
    return fmt(
      bucket === undefined
        ? grandTotal(series)
        : tidy(sumOf(series.map((s) => s.points[bucket]?.value ?? 0))),
    );
  };
  const totalRow = showTotal
    ? ['Total', ...(withBuckets ? dates.map((_, i) => totalCell(i)) : []), totalCell()]
    : null;
  return {
    kind: 'table',
    title: input.title,
    stamp: input.stamp,
    columns,
    numeric: columns.map((_, i) => i > 0),
    rows,
    totalRow,
  };
}

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

/**
 * Builds the spec of one chart. Series are drawn in the order given (the engine's: largest first);
 * WATERFALL draws each series' total as a step from the running sum, then the total bar.
 */
export function buildChartSpec(input: ChartInput): ChartSpec {
  const opts = input.displayOptions ?? {};
  const precision = opts.precision ?? 2;
  const showTotal = opts.showTotal !== false;
  const series = shapeSeries(input.series, opts);
  if (input.chartType === 'TABLE') return tableSpec(input, series, precision, showTotal);

  const split = currencyTotals(series);
  const subtext = [
    ...(showTotal ? [totalLine(series, input.currency, precision, input.unit)] : []),
    ...input.stamp.flatMap((line) => wrapWords(line, SUBTEXT_MAX_CHARS)),
  ].join('\n');
  const valueFmt = (x: number) => formatFigure(x, input.currency, precision, input.unit);
  const base = {
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
  // Every chart: the common options, then the kind's own (which override them).
  const echarts = (option: Record<string, unknown>): EChartsSpec => ({
    kind: 'echarts',
    title: input.title,
    stamp: input.stamp,
    option: { ...base, ...option },
  });

  if (input.chartType === 'WATERFALL') {
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
    // A labelled bar of the waterfall's stack; `sign` turns the stored magnitude back into the step's value.
    const stepBar = (
      name: string,
      color: string,
      show: boolean,
      position: 'top' | 'bottom',
      sign: 1 | -1,
      data: (number | string)[],
    ) => ({
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
    });
    return echarts({
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
        stepBar('Increase', '#5470c6', names.length <= 12, 'top', 1, split ? ups : [...ups, '-']),
        stepBar('Decrease', '#3ba272', names.length <= 12, 'bottom', -1, split ? downs : [...downs, '-']),
        ...(split
          ? []
          : [
              stepBar('Total', '#555', true, 'top', 1, [
                ...names.slice(0, -1).map(() => '-'),
                Math.abs(running),
              ]),
            ]),
      ],
    });
  }

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
  return echarts({
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
    grid: { ...base.grid, bottom: 40 + 20 * rows },
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
  });
}

/** The shape of an engine answer the builder reads (structurally `QueryOut[]` of the explorer). */
export interface EngineQuery {
  name: string;
  alias: string | null;
  unit: string | null;
  currency: string | null;
  series: {
    group: Record<string, string | null>;
    points: ChartPoint[];
    total: number | null;
    other?: true;
  }[];
}

/**
 * Labels every series of the engine's queries: the group values (`(none)` for a missing value,
 * `Other` for the summed rest) joined by ` / `, prefixed by the query's alias or name when there
 * are several queries; a query without group-by is named by its alias or name.
 */
export function seriesFromQueries(queries: readonly EngineQuery[]): ChartSeries[] {
  const several = queries.length > 1;
  return queries.flatMap((q) =>
    q.series.map((s) => {
      const label = q.alias ?? q.name;
      const groups = Object.values(s.group);
      const group = s.other ? OTHER : groups.map((g) => g ?? '(none)').join(' / ');
      const name = !groups.length && !s.other ? label : several ? `${label}: ${group}` : group;
      const currency = q.currency === null ? s.group.BillingCurrency : undefined;
      return {
        name,
        points: s.points.map((p) => ({ date: p.date, value: p.value })),
        total: s.total,
        ...(s.other ? { other: true as const } : {}),
        ...(currency ? { currency } : {}),
      };
    }),
  );
}

/** The part of an engine answer a chart reads (structurally the explorer's answer). */
export interface EngineAnswer {
  period: { startDate: string; endDate: string };
  comparison?: { period: { startDate: string; endDate: string } } | null;
  dataThrough: string | null;
  currency: string | null;
  conversion?: ChartStamp['conversion'];
  queries: readonly EngineQuery[];
}

/**
 * A saved widget's chart type: its first visible query's (the explorer draws per query), `BAR` when
 * it has none; a type the builder cannot draw is shown as a table.
 */
export function widgetChartType(queries: readonly { visible?: boolean; chartType?: string }[]): ChartType {
  const q = queries.find((x) => x.visible !== false) ?? queries[0];
  const t = q?.chartType ?? 'BAR';
  return (CHART_TYPES as readonly string[]).includes(t) ? (t as ChartType) : 'TABLE';
}

/** The builder's input from an engine answer: series labels, currency, unit and stamp. */
export function chartInputOf(
  r: EngineAnswer,
  o: {
    title: string;
    chartType: ChartType;
    displayOptions?: ChartDisplayOptions | undefined;
    requestedCurrency?: string | null;
  },
): ChartInput {
  const units = [...new Set(r.queries.map((q) => q.unit).filter((u): u is string => !!u))];
  return {
    title: o.title,
    chartType: o.chartType,
    series: seriesFromQueries(r.queries),
    currency: r.queries.every((q) => q.currency === null) ? null : r.currency,
    unit: units.length === 1 ? units[0]! : null,
    displayOptions: o.displayOptions,
    stamp: stampLines({
      period: r.period,
      comparisonPeriod: r.comparison?.period ?? null,
      dataThrough: r.dataThrough,
      currency: r.currency,
      requestedCurrency: o.requestedCurrency ?? null,
      conversion: r.conversion ?? null,
    }),
    dataThrough: r.dataThrough,
  };
}
