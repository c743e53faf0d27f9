// The rolling aggregates over windows planned by the evaluator: `starts[i]` is the first index of
// output i's window, or -1 when the window reaches before the history.

/** Sum (or mean) of the non-null values of each window, kept incrementally. */
export function rollingSumAvg(values: Float64Array, starts: Int32Array, mean: boolean): Float64Array {
  const out = new Float64Array(values.length);
  let sum = 0;
  let count = 0;
  let lo = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (!Number.isNaN(x)) {
      sum += x;
      count++;
    }
    const start = starts[i] as number;
    while (lo < start) {
      const y = values[lo++] as number;
      if (!Number.isNaN(y)) {
        sum -= y;
        count--;
      }
    }
    if (count === 0) sum = 0;
    out[i] = start < 0 || count === 0 ? Number.NaN : mean ? sum / count : sum;
  }
  return out;
}

/** Sample standard deviation (n − 1) of the non-null values; null with fewer than two. */
export function rollingStd(values: Float64Array, starts: Int32Array): Float64Array {
  const out = new Float64Array(values.length);
  // Sums of (x − shift) keep the variance accurate when values sit far from zero.
  let shift = Number.NaN;
  for (const x of values) {
    if (!Number.isNaN(x)) {
      shift = x;
      break;
    }
  }
  let s1 = 0;
  let s2 = 0;
  let count = 0;
  let lo = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (!Number.isNaN(x)) {
      const d = x - shift;
      s1 += d;
      s2 += d * d;
      count++;
    }
    const start = starts[i] as number;
    while (lo < start) {
      const y = values[lo++] as number;
      if (!Number.isNaN(y)) {
        const d = y - shift;
        s1 -= d;
        s2 -= d * d;
        count--;
      }
    }
    if (count === 0) {
      s1 = 0;
      s2 = 0;
    }
    if (start < 0 || count < 2) {
      out[i] = Number.NaN;
      continue;
    }
    const variance = (s2 - (s1 * s1) / count) / (count - 1);
    out[i] = Math.sqrt(Math.max(variance, 0));
  }
  return out;
}

/** Index of the first element of `sorted[0..len)` not less than `x`. */
function lowerBound(sorted: Float64Array, len: number, x: number): number {
  let lo = 0;
  let hi = len;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Median of the non-null values of each window: a sorted window, binary insertion and removal. */
export function rollingMedian(values: Float64Array, starts: Int32Array): Float64Array {
  const out = new Float64Array(values.length);
  const sorted = new Float64Array(values.length);
  let len = 0;
  let lo = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (!Number.isNaN(x)) {
      const at = lowerBound(sorted, len, x);
      sorted.copyWithin(at + 1, at, len);
      sorted[at] = x;
      len++;
    }
    const start = starts[i] as number;
    while (lo < start) {
      const y = values[lo++] as number;
      if (!Number.isNaN(y)) {
        const at = lowerBound(sorted, len, y);
        sorted.copyWithin(at, at + 1, len);
        len--;
      }
    }
    if (start < 0 || len === 0) {
      out[i] = Number.NaN;
      continue;
    }
    const mid = len >>> 1;
    out[i] = len % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  }
  return out;
}
