/**
 * Order statistics shared by the forecast's accuracy figures and model and by the benchmarks'
 * timings (one definition of each).
 */

/** The `p`-quantile (0 to 1) of values sorted ascending, by nearest rank; 0 for none. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i] ?? 0;
}

/** The median of values in any order (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}
