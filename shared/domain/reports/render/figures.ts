import type { MonthForecast } from './widget-data';

/** How a report writes its figures: amounts in their currency, changes in percent. */
export function money(x: number, currency: string | null): string {
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: currency ?? 'USD',
      maximumFractionDigits: Math.abs(x) >= 100 ? 0 : 2,
    }).format(x);
  } catch {
    return `${x.toFixed(2)} ${currency ?? ''}`.trim();
  }
}

export function pct(x: number | null): string {
  if (x === null) return 'new';
  return `${x >= 0 ? '+' : ''}${x.toFixed(Math.abs(x) >= 10 ? 0 : 1)} %`;
}

/** "March 2025 is forecast to close at $X (80 % between $A and $B); actual through 2025-03-12." */
export function forecastSentence(f: MonthForecast, currency: string | null): string {
  const name = new Date(`${f.month}-01T00:00:00Z`).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return `${name} is forecast to close at ${money(f.value, currency)} (80 % between ${money(f.lower80, currency)} and ${money(f.upper80, currency)}); actual through ${f.dataThrough}.`;
}
