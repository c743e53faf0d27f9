/**
 * The backtest's figures: the error quantiles the intervals are made of, and the accuracy a
 * forecast carries (docs/forecasting.md, "Accuracy").
 */
import { quantile } from '../common/stats';
import { toDate } from './days';

export interface ForecastAccuracy {
  /** Horizon of the backtest, days: the requested one, shortened when the history is too short. */
  horizonDays: number;
  /** Backtest origins whose whole horizon is in the history (one per day). */
  origins: number;
  /** First and last origin: the forecasts were made as of these days. */
  from: string;
  to: string;
  /** Mean absolute % error of the daily values; null when over 10 % of the actual days are ~0. */
  mape: number | null;
  /** Sum of absolute errors over sum of absolute actuals (a scaled error that survives zeros). */
  wape: number;
  /** Absolute % error of the horizon total over the origins: median and 90th percentile. */
  totalError: { median: number; p90: number } | null;
  /** MAE over the MAE of one-step weekly seasonal naive in the fit window (Hyndman's MASE). */
  mase: number | null;
  /** MAE over the MAE of weekly seasonal naive at the same origins and horizon. */
  relativeMae: number | null;
  /** Share of actuals inside the 80 % / 95 % intervals (intervals from the first half of the
   * origins, counted on the second half). */
  coverage80: number | null;
  coverage95: number | null;
}

/** Nearest-rank index of quantile p among n values. */
const rankOf = (n: number, p: number) => Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));

/**
 * Rearranges a[lo … hi] so that a[k] holds the value a full sort would put there, smaller or equal
 * values before it and greater or equal after (Hoare's selection, median-of-three pivot): linear
 * time, where the quantiles of a pool were a sort each.
 */
function selectRank(a: Float64Array, k: number, lo: number, hi: number): number {
  while (hi > lo) {
    const x = a[lo] ?? 0;
    const y = a[(lo + hi) >> 1] ?? 0;
    const z = a[hi] ?? 0;
    const pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z)); // the median of the three
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] ?? 0) < pivot) i++;
      while ((a[j] ?? 0) > pivot) j--;
      if (i <= j) {
        const t = a[i] ?? 0;
        a[i] = a[j] ?? 0;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k] ?? 0;
}

/**
 * The 2.5th, 10th, 90th and 97.5th percentiles (nearest rank) of `values`, which it reorders. The
 * backtest's origins overlap, so its errors hold fewer independent values than they count, too few
 * for the 2.5 % tails: the 95 % ones are at least the 80 % ones' distance from the median
 * stretched as a normal distribution's are (1.96 / 1.2816).
 */
export function errorQuantiles(values: Float64Array): [number, number, number, number] {
  const n = values.length;
  if (!n) return [0, 0, 0, 0];
  // Each selection leaves the ranks below it on its left: the next one searches that side only.
  const rMid = rankOf(n, 0.5);
  const r10 = rankOf(n, 0.1);
  const r025 = rankOf(n, 0.025);
  const r90 = rankOf(n, 0.9);
  const r975 = rankOf(n, 0.975);
  const mid = selectRank(values, rMid, 0, n - 1);
  const q10 = selectRank(values, r10, 0, rMid);
  const e025 = selectRank(values, r025, 0, r10);
  const q90 = selectRank(values, r90, rMid, n - 1);
  const e975 = selectRank(values, r975, r90, n - 1);
  return quantilesAt(mid, q10, e025, q90, e975);
}

/** The four bounds from the median, the 10th/90th and the 2.5th/97.5th percentiles (see `errorQuantiles`). */
function quantilesAt(
  mid: number,
  q10: number,
  e025: number,
  q90: number,
  e975: number,
): [number, number, number, number] {
  const stretch = 1.96 / 1.2816;
  return [Math.min(e025, mid + (q10 - mid) * stretch), q10, q90, Math.max(e975, mid + (q90 - mid) * stretch)];
}

/**
 * Error quantiles per horizon h: the backtest errors at horizons within ±10 % of h (at least ±1
 * day) over every origin; beyond the backtest horizon those of its last horizon, widened by
 * √(h / horizon).
 *
 * Each horizon's errors are sorted once; the pool of h+1 is that of h with the columns it no
 * longer holds taken out and the new ones merged in (both linear), so each quantile is read at
 * its rank: the values `errorQuantiles` would select from the same pool.
 */
export function horizonQuantiles(
  errors: Map<number, Float64Array>,
  hb: number,
  horizon: number,
  origins: readonly number[],
  /** Receives each horizon's errors over the origins, NaN left out, sorted (`columns[h - 1]`). */
  sortedColumns?: Float64Array[],
): [number, number, number, number][] {
  const rows: Float64Array[] = [];
  for (const o of origins) {
    const e = errors.get(o);
    if (e) rows.push(e);
  }
  const top = Math.min(hb, horizon);
  const spread = (h: number) => Math.max(1, Math.round(h / 10));
  const last = Math.min(hb, top + spread(top));
  // columns[j - 1]: the errors at horizon j over every origin, NaN (past the history) left out, sorted.
  const columns: Float64Array[] = [];
  const scratch = new Float64Array(rows.length);
  for (let j = 1; j <= last; j++) {
    let n = 0;
    for (const e of rows) {
      const v = e[j - 1] ?? Number.NaN;
      if (!Number.isNaN(v)) scratch[n++] = v;
    }
    columns.push(scratch.slice(0, n).sort());
  }
  sortedColumns?.push(...columns);
  const capacity = rows.length * (2 * spread(top) + 1);
  let pool = new Float64Array(capacity);
  let next = new Float64Array(capacity);
  let len = 0;
  let lo = 1;
  let hi = 0; // the pool holds the columns lo … hi
  const out: [number, number, number, number][] = [];
  for (let h = 1; h <= top; h++) {
    const k = spread(h);
    const from = Math.max(1, h - k);
    const to = Math.min(hb, h + k);
    for (; lo < from; lo++) {
      len = withoutSorted(pool, len, columns[lo - 1] as Float64Array, next);
      [pool, next] = [next, pool];
    }
    for (; hi < to; hi++) {
      len = mergeSorted(pool, len, columns[hi] as Float64Array, next);
      [pool, next] = [next, pool];
    }
    out.push(sortedQuantiles(pool, len));
  }
  const lastQ = out[out.length - 1] ?? [0, 0, 0, 0];
  for (let h = hb + 1; h <= horizon; h++) {
    const f = Math.sqrt(h / hb);
    out.push([lastQ[0] * f, lastQ[1] * f, lastQ[2] * f, lastQ[3] * f]);
  }
  return out;
}

/** The sorted a[0, len) and b merged into `out`; answers the length. */
function mergeSorted(a: Float64Array, len: number, b: Float64Array, out: Float64Array): number {
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < len && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (y < x) {
      out[k++] = y;
      j++;
    } else {
      out[k++] = x;
      i++;
    }
  }
  while (i < len) out[k++] = a[i++] as number;
  while (j < b.length) out[k++] = b[j++] as number;
  return k;
}

/** The sorted a[0, len) less the values of the sorted b (each once), into `out`; answers the length. */
function withoutSorted(a: Float64Array, len: number, b: Float64Array, out: Float64Array): number {
  let j = 0;
  let k = 0;
  for (let i = 0; i < len; i++) {
    const x = a[i] as number;
    while (j < b.length && (b[j] as number) < x) j++;
    if (j < b.length && b[j] === x) j++;
    else out[k++] = x;
  }
  return k;
}

/** `errorQuantiles` of values already sorted (a[0, len)). */
export function sortedQuantiles(a: Float64Array, n: number): [number, number, number, number] {
  if (!n) return [0, 0, 0, 0];
  return quantilesAt(
    a[rankOf(n, 0.5)] ?? 0,
    a[rankOf(n, 0.1)] ?? 0,
    a[rankOf(n, 0.025)] ?? 0,
    a[rankOf(n, 0.9)] ?? 0,
    a[rankOf(n, 0.975)] ?? 0,
  );
}

export function accuracyOf(
  errors: Map<number, Float64Array>,
  naive: Map<number, Float64Array>,
  y: readonly number[],
  fitEnd: number,
  hb: number,
  first: number,
): ForecastAccuracy {
  const n = y.length;
  const complete = [...errors.keys()].filter((o) => o + hb <= n).sort((a, b) => a - b);
  let absErr = 0;
  let absAct = 0;
  let ape = 0;
  let apeN = 0;
  let zeroDays = 0;
  let points = 0;
  let naiveAbs = 0;
  const totals: number[] = [];
  const scale = Math.max(...y.map(Math.abs), 0) * 1e-3;
  for (const o of complete) {
    const e = errors.get(o) as Float64Array;
    const en = naive.get(o);
    let totalAct = 0;
    let totalErr = 0;
    for (let h = 1; h <= hb; h++) {
      const act = y[o + h - 1] ?? 0;
      const err = e[h - 1] ?? 0;
      absErr += Math.abs(err);
      absAct += Math.abs(act);
      naiveAbs += Math.abs(en?.[h - 1] ?? 0);
      points++;
      if (Math.abs(act) <= scale) zeroDays++;
      else {
        ape += Math.abs(err / act);
        apeN++;
      }
      totalAct += act;
      totalErr += err;
    }
    if (Math.abs(totalAct) > scale * hb) totals.push(Math.abs(totalErr / totalAct));
  }
  totals.sort((a, b) => a - b);
  // In-sample one-step weekly seasonal-naive MAE over the fit window (MASE's scale).
  let snMae = 0;
  for (let t = 7; t < fitEnd; t++) snMae += Math.abs((y[t] ?? 0) - (y[t - 7] ?? 0));
  snMae /= Math.max(1, fitEnd - 7);
  const mae = points ? absErr / points : 0;
  const { counted, in80, in95 } = coverageOf(errors, hb);
  const round = (v: number) => Math.round(v * 10_000) / 10_000;
  return {
    horizonDays: hb,
    origins: complete.length,
    from: toDate(first + (complete[0] ?? fitEnd) - 1),
    to: toDate(first + (complete[complete.length - 1] ?? fitEnd) - 1),
    mape: points && zeroDays / points <= 0.1 && apeN ? round(ape / apeN) : null,
    wape: absAct ? round(absErr / absAct) : 0,
    totalError: totals.length
      ? { median: round(quantile(totals, 0.5)), p90: round(quantile(totals, 0.9)) }
      : null,
    mase: snMae > 0 ? round(mae / snMae) : null,
    relativeMae: naiveAbs > 0 ? round(absErr / naiveAbs) : null,
    coverage80: counted ? round(in80 / counted) : null,
    coverage95: counted ? round(in95 / counted) : null,
  };
}

/** Coverage: intervals from the first half of the origins, counted on the second half. */
function coverageOf(errors: Map<number, Float64Array>, hb: number) {
  const all = [...errors.keys()].sort((a, b) => a - b);
  const half = all.slice(0, all.length >> 1);
  const later = all.slice(all.length >> 1);
  const q = horizonQuantiles(errors, hb, hb, half);
  let in80 = 0;
  let in95 = 0;
  let counted = 0;
  for (const o of later) {
    const e = errors.get(o) as Float64Array;
    for (let h = 1; h <= hb; h++) {
      const v = e[h - 1] ?? Number.NaN;
      const qh = q[h - 1];
      if (Number.isNaN(v) || !qh) continue;
      counted++;
      if (v >= qh[1] && v <= qh[2]) in80++;
      if (v >= qh[0] && v <= qh[3]) in95++;
    }
  }
  return { counted, in80, in95 };
}
