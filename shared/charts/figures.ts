import type { ChartStamp } from './model';

// How a chart writes its figures, bucket labels and stamp.

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

/** A bucket's label: its day, or its day and time for hourly buckets. */
export const bucketLabel = (date: string) => (date.length > 10 ? date.slice(0, 16).replace('T', ' ') : date);
