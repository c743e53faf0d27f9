/**
 * What the explorer draws over the builder's chart and table (pure, no DOM): the previous period
 * beside the current one (dashed lines; change and % change columns in the table) and the forecast
 * (a dotted line per series in its colour, its 80 % interval shaded and the 95 % one lighter, the
 * buckets past the period added to the axis), and the forecast's measured accuracy in words.
 * Series are named as the chart names them (`seriesFromQueries` over the labelled answer), so a
 * previous-period series is matched to its current one by name.
 */
import { type ChartSeries, formatFigure, seriesFromQueries, type TableSpec } from '../../shared/charts/spec';
import type { ForecastPoint } from '../../shared/domain/forecast/forecast';
import { BAND_ID } from './chart-option';
import type { ExplorerQuery, ExplorerResult, ResultQuery } from './shape';
import { labelQueries } from './shape';
import { forecastMethodWords, monthLabel } from './words';

// biome-ignore lint/suspicious/noExplicitAny: an ECharts option is open-ended JSON
type Option = Record<string, any>;

/** One series' forecast as drawn: a bucket's value is the whole bucket (actual days included). */
export interface ForecastLine {
  name: string;
  points: ForecastPoint[];
}

/** What the explorer adds to a chart: the previous period's series, the forecasts. */
export interface Overlay {
  previous: ChartSeries[] | null;
  forecasts: ForecastLine[];
}

/** The answer's queries with the chart's labels (aliases, the metric in words for a lone query). */
function labelled(qs: ResultQuery[], r: ExplorerResult, asked: readonly ExplorerQuery[]): ResultQuery[] {
  return labelQueries({ ...r, queries: qs }, asked).queries;
}

/** The previous period's series, named as the current ones; null without a comparison. */
export function previousSeries(r: ExplorerResult, asked: readonly ExplorerQuery[]): ChartSeries[] | null {
  const qs = r.comparison?.queries;
  return qs ? seriesFromQueries(labelled(qs, r, asked)) : null;
}

/** Each series of the answer with its query, named as the chart names it. */
function namedSeries(r: ExplorerResult, asked: readonly ExplorerQuery[]) {
  const qs = labelled(r.queries, r, asked);
  const names = seriesFromQueries(qs).map((s) => s.name);
  return qs.flatMap((q) => q.series.map((s) => ({ q, s }))).map((x, i) => ({ ...x, name: names[i]! }));
}

/** Each forecast series of the answer (named as the chart names its actual series). */
export function forecastLines(r: ExplorerResult, asked: readonly ExplorerQuery[]): ForecastLine[] {
  return namedSeries(r, asked).flatMap(({ s, name }) =>
    s.forecast?.length
      ? [{ name, points: s.forecast.map((b) => ({ date: b.date, ...(b.bucketTotal ?? b) })) }]
      : [],
  );
}

export function overlayOf(r: ExplorerResult, asked: readonly ExplorerQuery[]): Overlay | null {
  const previous = previousSeries(r, asked);
  const forecasts = forecastLines(r, asked);
  return previous || forecasts.length ? { previous, forecasts } : null;
}

const FORECAST = ' forecast';
const PREVIOUS = ' (previous period)';
const PREVIOUS_TOTAL = 'Previous period (total)';

/**
 * The builder's option with the overlay drawn: the previous period aligned bucket by bucket with
 * the current one (one dashed line per series on a line chart or a single series; the total of
 * the stack otherwise, which is what a stack's height reads), and each forecast as a dotted line
 * with its intervals, in its series' colour.
 */
export function withOverlay(o: Option, ov: Overlay): Option {
  if (o.xAxis?.type !== 'category' || !Array.isArray(o.series)) return o;
  const palette: string[] = o.color ?? [];
  const current: Option[] = o.series;
  const colorOf = (name: string) => {
    const i = current.findIndex((s) => s.name === name);
    return palette[(i < 0 ? current.length : i) % palette.length];
  };
  const dates: string[] = [...(o.xAxis.data ?? [])];
  for (const f of ov.forecasts) for (const p of f.points) if (!dates.includes(p.date)) dates.push(p.date);
  dates.sort();
  const at = <T>(points: readonly { date: string }[], value: (i: number) => T) => {
    const out: (T | null)[] = dates.map(() => null);
    points.forEach((p, i) => {
      const k = dates.indexOf(p.date);
      if (k >= 0) out[k] = value(i);
    });
    return out;
  };
  const added: Option[] = [];
  if (ov.previous?.length) {
    const perSeries = current.length === 1 || current.every((s) => s.type === 'line' && !s.stack);
    const dashed = (name: string, data: (number | null)[], color: string | undefined) => ({
      type: 'line',
      name,
      data,
      symbol: 'none',
      lineStyle: { type: 'dashed', width: 2, ...(color ? { color } : {}) },
      ...(color ? { itemStyle: { color } } : {}),
      z: 3,
    });
    if (perSeries)
      for (const s of ov.previous)
        added.push(
          dashed(
            `${s.name}${PREVIOUS}`,
            s.points.map((p) => p.value),
            colorOf(s.name),
          ),
        );
    else {
      const n = Math.max(0, ...ov.previous.map((s) => s.points.length));
      const totals = Array.from({ length: n }, (_, i) =>
        ov.previous!.reduce((a, s) => a + (s.points[i]?.value ?? 0), 0),
      );
      added.push(dashed(PREVIOUS_TOTAL, totals, '#444'));
    }
  }
  ov.forecasts.forEach((f, i) => {
    const name = `${f.name}${FORECAST}`;
    const color = colorOf(f.name);
    const band = (part: string, value: (k: number) => number, opacity: number) => ({
      type: 'line',
      id: `${BAND_ID}${i}:${part}`,
      name,
      stack: `${BAND_ID}${i}`,
      stackStrategy: 'all',
      data: at(f.points, value),
      symbol: 'none',
      silent: true,
      lineStyle: { opacity: 0 },
      ...(opacity ? { areaStyle: { opacity, ...(color ? { color } : {}) } } : {}),
      z: 1,
    });
    const p = f.points;
    // The line first: the legend's entry, shared with its bands, takes its look.
    added.push(
      {
        type: 'line',
        name,
        data: at(p, (k) => ({ ...p[k]!, value: p[k]!.value })),
        symbolSize: 4,
        lineStyle: { type: 'dotted', width: 2, ...(color ? { color } : {}) },
        ...(color ? { itemStyle: { color } } : {}),
        z: 4,
      },
      band('base', (k) => p[k]!.lower95, 0),
      band('95-low', (k) => p[k]!.lower80 - p[k]!.lower95, 0.12),
      band('80', (k) => p[k]!.upper80 - p[k]!.lower80, 0.28),
      band('95-high', (k) => p[k]!.upper95 - p[k]!.upper80, 0.12),
    );
  });
  return {
    ...o,
    xAxis: { ...o.xAxis, data: dates },
    series: [
      ...current.map((s) => ({ ...s, data: at(dateless(o.xAxis.data, s.data), (k) => s.data[k]) })),
      ...added,
    ],
  };
}

/** The builder's data of a series as points on its own axis (to re-place on the longer one). */
const dateless = (axis: readonly string[], data: readonly unknown[]) =>
  data.map((_, i) => ({ date: axis[i] ?? '' }));

const signed = (text: string, x: number) => (x > 0 ? `+${text}` : text);

/** A change in percent ("+12.5%"), `–` against nothing. */
export function percentChange(now: number, before: number): string {
  if (before === 0) return '–';
  const p = ((now - before) / Math.abs(before)) * 100;
  return signed(`${p.toFixed(1)}%`, p);
}

/**
 * The table with the previous period's total, the change and the % change of each series (and of
 * the total, unless the series are in several currencies): the columns after `Total`.
 */
export function withChange(
  t: TableSpec,
  current: readonly ChartSeries[],
  previous: readonly ChartSeries[],
  money: { currency: string | null; precision: number; unit: string | null },
): TableSpec {
  const fmt = (x: number, c: string | null | undefined) =>
    formatFigure(x, c ?? money.currency, money.precision, money.unit);
  const cells = (now: number | null, before: number | null, c?: string | null) =>
    now === null || before === null
      ? ['–', '–', '–']
      : [fmt(before, c), signed(fmt(now - before, c), now - before), percentChange(now, before)];
  const prev = new Map(previous.map((s) => [s.name, s.total ?? 0]));
  const byName = new Map(current.map((s) => [s.name, s]));
  const rows = t.rows.map((r) => {
    const s = byName.get(r[0]!);
    return [...r, ...cells(s?.total ?? null, s ? (prev.get(s.name) ?? 0) : null, s?.currency)];
  });
  const mixed = current.some((s) => s.currency) || previous.some((s) => s.currency);
  const sum = (xs: readonly ChartSeries[]) => xs.reduce((a, s) => a + (s.total ?? 0), 0);
  return {
    ...t,
    columns: [...t.columns, 'Previous period', 'Change', '% change'],
    numeric: [...t.numeric, true, true, true],
    rows,
    totalRow: t.totalRow && [
      ...t.totalRow,
      ...cells(mixed ? null : sum(current), mixed ? null : sum(previous)),
    ],
  };
}

/**
 * How far to trust each series' forecast, in words: "S3: within 6.2% on 28-day totals over the
 * last 12 weeks (exponential smoothing)" (the median absolute error of the backtest's horizon
 * totals: docs/forecasting.md, "Accuracy"); a short history or the baseline says it has no backtest.
 * A bucket partly actual adds where it will close.
 */
export function accuracyNotes(
  r: ExplorerResult,
  asked: readonly ExplorerQuery[],
  currency: string | null,
): string[] {
  const notes: string[] = [];
  for (const { q, s, name } of namedSeries(r, asked)) {
    const fa = s.forecastAccuracy;
    if (!fa) continue;
    const a = fa.accuracy;
    const method = forecastMethodWords(fa.method);
    let text: string;
    if (a?.totalError) {
      const weeks = Math.max(1, Math.round(a.origins / 7));
      text = `${name}: within ${(a.totalError.median * 100).toFixed(1)}% on ${a.horizonDays}-day totals over the last ${weeks} week${weeks === 1 ? '' : 's'} (${method}; 9 in 10 within ${(a.totalError.p90 * 100).toFixed(1)}%)`;
    } else if (fa.fallback) text = `${name}: ${fa.fallback.detail} (${method}; accuracy not measured)`;
    else text = `${name}: ${method}, accuracy not measured`;
    const open = s.forecast?.find((b) => b.bucketTotal);
    if (open?.bucketTotal) {
      const c = q.currency ?? currency;
      const f = (x: number) => formatFigure(x, c, 2, null);
      const t = open.bucketTotal;
      text += `. ${r.period.aggBy === 'Month' ? monthLabel(open.date) : `The bucket of ${open.date}`} will close at ${f(t.value)}, 80% between ${f(t.lower80)} and ${f(t.upper80)}`;
    }
    notes.push(`${text}.`);
  }
  return notes;
}
