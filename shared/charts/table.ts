import { bucketLabel, formatFigure } from './figures';
import type { ChartInput, ChartSeries, TableSpec } from './model';
import { currencyTotals, currencyTotalsText, grandTotal, sumOf, tidy } from './series';

/** Bucket columns a TABLE shows before it keeps to the totals only. */
export const TABLE_MAX_BUCKET_COLUMNS = 12;

/** A TABLE: a row per series (largest first, `Other` last), bucket columns when few, a total row. */
export function tableSpec(
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
