import { formatFigure } from './figures';
import type { ChartDisplayOptions, ChartSeries } from './model';

// The series a chart draws (`topN`, `hideEmptyRows`) and their totals, per currency when split.

export const OTHER = 'Other';
export const sumOf = (xs: (number | null)[]) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
/** Sums without binary-float noise at cent level (figures are rounded where they are printed). */
export const tidy = (x: number) => Math.round(x * 1e9) / 1e9;

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
export function currencyTotalsText(
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
