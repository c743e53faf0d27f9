/**
 * The page's version of a chart (pure, no DOM): the builder (shared/charts/spec.ts) draws for an
 * 800 px PNG, with its title and stamp inside the image; a page shows the title and the stamp as
 * text above the canvas (a heading a screen reader and a search find), figures in the chart's
 * currency in the tooltip, months as "May 2026", one scrolling legend row under the plot (never
 * over the axis, whatever the card's width) and, on a narrow card, slanted waterfall labels.
 */
import { type ChartInput, type EChartsSpec, formatFigure } from '../../shared/charts/spec';
import { monthLabel } from './words';

// biome-ignore lint/suspicious/noExplicitAny: an ECharts option is open-ended JSON
type Option = Record<string, any>;

/** What the tooltip needs to say a figure: the chart's currency (or each series'), precision, unit. */
export interface FigureFormat {
  currency: string | null;
  precision: number;
  unit: string | null;
  /** Series split by billing currency: each series' own. */
  seriesCurrency: Record<string, string>;
}

export function figureFormat(input: ChartInput): FigureFormat {
  const seriesCurrency: Record<string, string> = {};
  for (const s of input.series) if (s.currency) seriesCurrency[s.name] = s.currency;
  return {
    currency: input.currency,
    precision: input.displayOptions?.precision ?? 2,
    unit: input.unit ?? null,
    seriesCurrency,
  };
}

/** The builder's title block as text: the title, then the total and stamp lines (its subtext). */
export function titleLines(spec: EChartsSpec): { title: string; lines: string[] } {
  const first = Array.isArray(spec.option.title) ? spec.option.title[0] : spec.option.title;
  const sub = typeof first?.subtext === 'string' ? first.subtext : '';
  return { title: spec.title, lines: sub ? sub.split('\n') : [] };
}

/** The series id prefix of a forecast's interval bands (overlays.ts): the tooltip leaves them out. */
export const BAND_ID = 'band:';

/** Below this width (px) a waterfall's labels are slanted and its bar labels left out. */
export const NARROW_PX = 600;
/** The legend's one row under the plot, and the axis labels' band above it. */
const LEGEND_PX = 28;

interface TooltipParam {
  marker?: string;
  seriesName?: string;
  value?: unknown;
  axisValueLabel?: string;
  name?: string;
  seriesIndex?: number;
  seriesId?: string;
  /** A forecast point's data item carries its interval. */
  data?: unknown;
}

function tooltipFormatter(fmt: FigureFormat, waterfall: boolean) {
  const money = (v: unknown, series?: string) =>
    typeof v === 'number'
      ? formatFigure(v, (series && fmt.seriesCurrency[series]) || fmt.currency, fmt.precision, fmt.unit)
      : '–';
  return (raw: TooltipParam | TooltipParam[]) => {
    const ps = (Array.isArray(raw) ? raw : [raw]).filter(
      // A waterfall's invisible offset bar, its empty steps and a forecast's bands say nothing.
      (p) =>
        typeof p.value === 'number' &&
        !(waterfall && p.seriesIndex === 0) &&
        !p.seriesId?.startsWith(BAND_ID),
    );
    const head = ps[0]?.axisValueLabel ?? ps[0]?.name ?? '';
    const rows = ps.map((p) => {
      const d = p.data as { lower80?: number; upper80?: number } | undefined;
      const range =
        typeof d?.lower80 === 'number' && typeof d.upper80 === 'number'
          ? ` (80%: ${money(d.lower80, p.seriesName)} to ${money(d.upper80, p.seriesName)})`
          : '';
      return `${p.marker ?? ''}${escapeHtml(p.seriesName ?? '')}: ${money(p.value, p.seriesName)}${range}`;
    });
    return [escapeHtml(head), ...rows].join('<br/>');
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

/**
 * The option a page draws for `spec` in a box `width` px wide. `aggBy` `Month` labels the buckets
 * "May 2026".
 */
export function pageOption(spec: EChartsSpec, fmt: FigureFormat, width: number, aggBy?: string): Option {
  const o = spec.option;
  const waterfall = o.legend?.show === false && Array.isArray(o.series) && o.series.length >= 3;
  const titles = Array.isArray(o.title) ? o.title : [];
  const narrow = width > 0 && width < NARROW_PX;
  const out: Option = {
    ...o,
    // The title and stamp are page text; only the "No data" note stays in the plot.
    title: titles.slice(1),
    grid: { ...o.grid, top: 24, left: 8, right: 24, bottom: waterfall ? 8 : LEGEND_PX + 8 },
    tooltip: {
      trigger: o.xAxis ? 'axis' : 'item',
      confine: true,
      formatter: tooltipFormatter(fmt, waterfall),
    },
  };
  if (!waterfall && o.legend)
    out.legend = { ...o.legend, type: 'scroll', bottom: 0, left: 'center', width: '92%' };
  if (o.xAxis?.type === 'category') {
    const data: string[] = o.xAxis.data ?? [];
    out.xAxis = {
      ...o.xAxis,
      data: aggBy === 'Month' ? data.map(monthLabel) : data,
      axisLabel: waterfallLabels(o.xAxis.axisLabel ?? {}, data.length, width, waterfall),
    };
  }
  if (waterfall && narrow)
    out.series = o.series.map((s: Option) =>
      s.label ? { ...s, label: { ...s.label, show: data(o).length <= 4 } } : s,
    );
  return out;
}

const data = (o: Option): unknown[] => o.xAxis?.data ?? [];

/** A waterfall's step names fit the box: slanted and cut on a narrow one, level when they fit. */
function waterfallLabels(label: Option, n: number, width: number, waterfall: boolean): Option {
  if (!waterfall || width <= 0 || n === 0) return label;
  const per = (width - 40) / n;
  if (per >= 90) return { ...label, rotate: 0, width: Math.floor(per - 8), overflow: 'truncate' };
  return { ...label, interval: 0, rotate: 40, width: width < NARROW_PX ? 80 : 120, overflow: 'truncate' };
}
