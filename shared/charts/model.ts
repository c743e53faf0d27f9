// What a chart is drawn from (`ChartInput`) and what the builder answers (`ChartSpec`).

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
