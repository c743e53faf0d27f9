/**
 * The candidate forecasting methods over a gap-free daily series `x` (index 0 = first day). Each
 * method fits its parameters on `x[0, fitEnd)` only, then runs its state forward over the rest of
 * `x` with those parameters fixed and, at every origin `o` asked for (o = number of days observed,
 * fitEnd ≤ o ≤ x.length), records the forecast of days o … o+H-1. That one pass serves both the
 * rolling-origin backtest (origins inside the history) and the forecast itself (origin = length).
 * Weekly seasonality is indexed by `index mod 7`, so a series must start on the same weekday for
 * every origin (it does: the indices are absolute).
 */
import { median } from '../common/stats';
import { dayOfMonth } from './days';
import { weekdayMeans } from './legacy';

export type MethodName = 'ets' | 'theta' | 'ets-theta' | 'seasonal-naive' | 'weekday-mean';

/** Forecasts by origin: `paths.get(o)[h-1]` is the forecast of day `o + h - 1` made after day o-1. */
export type Paths = Map<number, Float64Array>;

export interface Candidate {
  name: MethodName;
  /** `done`: the paths other candidates already made for the same arguments (a combination reuses them). */
  run(
    x: readonly number[],
    fitEnd: number,
    origins: readonly number[],
    horizon: number,
    done?: ReadonlyMap<MethodName, Paths>,
  ): Paths;
}

const M = 7;

/**
 * Rows of `horizon` values cut from one buffer, one per origin: a backtest records a hundred paths
 * per method, and a typed array of its own each is the allocation that costs.
 */
export function pathRows(count: number, horizon: number): () => Float64Array {
  const buf = new Float64Array(Math.max(1, count) * horizon);
  let k = 0;
  return () => {
    const row = k < count ? buf.subarray(k * horizon, (k + 1) * horizon) : new Float64Array(horizon);
    k++;
    return row;
  };
}

// ---------------------------------------------------------------------------------------------
// Additive Holt-Winters, damped trend: ETS(A,Ad,A) in error-correction form, period 7.

interface EtsParams {
  alpha: number;
  beta: number;
  gamma: number;
  phi: number;
}

interface EtsState {
  level: number;
  trend: number;
  season: number[];
}

/**
 * Initial state from the first weeks (up to four, at least two): the trend is the change of the
 * weekly means per day, the level that of the first week's centre carried back to day -1, and each
 * weekday's index its mean deviation from that line. A pure weekly pattern, a pure line, or their
 * sum start with zero error, so they are reproduced exactly whatever the smoothing parameters.
 */
function etsInit(x: readonly number[], end: number): EtsState {
  const weeks = Math.max(1, Math.min(4, Math.floor(end / M)));
  const means: number[] = [];
  for (let w = 0; w < weeks; w++) {
    let s = 0;
    for (let i = 0; i < M; i++) s += x[w * M + i] ?? 0;
    means.push(s / M);
  }
  const first = means[0] ?? 0;
  const trend = weeks > 1 ? ((means[weeks - 1] ?? 0) - first) / (M * (weeks - 1)) : 0;
  const season = new Array<number>(M).fill(0);
  for (let w = 0; w < weeks; w++)
    for (let i = 0; i < M; i++) {
      const t = w * M + i;
      season[i] = (season[i] ?? 0) + ((x[t] ?? 0) - (first + trend * (t - 3))) / weeks;
    }
  const centre = season.reduce((a, b) => a + b, 0) / M;
  return { level: first + trend * -4 + centre, trend, season: season.map((s) => s - centre) };
}

const ALPHAS = [0.01, 0.03, 0.08, 0.15, 0.25, 0.4, 0.6];
const BETAS = [0, 0.02, 0.1];
const GAMMAS = [0.005, 0.02, 0.08, 0.2];
const PHIS = [0.9, 0.97, 1];

/**
 * The grid, in the order it is searched. β and γ are fractions of α and 1-α, which keeps the
 * model in its usual admissible region.
 */
const ETS_GRID: readonly EtsParams[] = ALPHAS.flatMap((alpha) =>
  BETAS.flatMap((b) =>
    GAMMAS.flatMap((g) => PHIS.map((phi) => ({ alpha, beta: b * alpha, gamma: g * (1 - alpha), phi }))),
  ),
);
/** Grid points run side by side: four independent chains of arithmetic keep the processor busy. */
const LANES = 4;

/**
 * One-step squared error of ETS over x[burn, end) for the grid points `from` … `from + 3` (a
 * missing point repeats the last one), into `sse`. Each lane's arithmetic is exactly that of the
 * point run alone. The run stops once every lane has reached `bound` (no point of the four can be
 * chosen); a lane's figure is then what it had summed, at least `bound`.
 */
function etsSse4(
  x: Float64Array,
  end: number,
  from: number,
  init: EtsState,
  burn: number,
  season: Float64Array,
  bound: number,
  sse: Float64Array,
): void {
  const last = ETS_GRID.length - 1;
  const at = (k: number) => ETS_GRID[Math.min(from + k, last)] as EtsParams;
  const { alpha: a0, beta: b0, gamma: g0, phi: p0 } = at(0);
  const { alpha: a1, beta: b1, gamma: g1, phi: p1 } = at(1);
  const { alpha: a2, beta: b2, gamma: g2, phi: p2 } = at(2);
  const { alpha: a3, beta: b3, gamma: g3, phi: p3 } = at(3);
  let l0 = init.level;
  let l1 = l0;
  let l2 = l0;
  let l3 = l0;
  let t0 = init.trend;
  let t1 = t0;
  let t2 = t0;
  let t3 = t0;
  for (let i = 0; i < M; i++) {
    const v = init.season[i] ?? 0;
    season[i] = v;
    season[M + i] = v;
    season[2 * M + i] = v;
    season[3 * M + i] = v;
  }
  let q0 = 0;
  let q1 = 0;
  let q2 = 0;
  let q3 = 0;
  let i = 0;
  for (let t = 0; t < end; t++) {
    const xt = x[t] as number;
    const s0 = season[i] as number;
    const s1 = season[M + i] as number;
    const s2 = season[2 * M + i] as number;
    const s3 = season[3 * M + i] as number;
    const e0 = xt - (l0 + p0 * t0 + s0);
    const e1 = xt - (l1 + p1 * t1 + s1);
    const e2 = xt - (l2 + p2 * t2 + s2);
    const e3 = xt - (l3 + p3 * t3 + s3);
    if (t >= burn) {
      // Once a lane reaches the bound its sum stays as the lone run would have returned it.
      if (q0 < bound) q0 += e0 * e0;
      if (q1 < bound) q1 += e1 * e1;
      if (q2 < bound) q2 += e2 * e2;
      if (q3 < bound) q3 += e3 * e3;
      if (q0 >= bound && q1 >= bound && q2 >= bound && q3 >= bound) break;
    }
    l0 = l0 + p0 * t0 + a0 * e0;
    l1 = l1 + p1 * t1 + a1 * e1;
    l2 = l2 + p2 * t2 + a2 * e2;
    l3 = l3 + p3 * t3 + a3 * e3;
    t0 = p0 * t0 + b0 * e0;
    t1 = p1 * t1 + b1 * e1;
    t2 = p2 * t2 + b2 * e2;
    t3 = p3 * t3 + b3 * e3;
    season[i] = s0 + g0 * e0;
    season[M + i] = s1 + g1 * e1;
    season[2 * M + i] = s2 + g2 * e2;
    season[3 * M + i] = s3 + g3 * e3;
    i = i === M - 1 ? 0 : i + 1;
  }
  sse[0] = q0;
  sse[1] = q1;
  sse[2] = q2;
  sse[3] = q3;
}

/**
 * Parameters by grid search on one-step squared error over the fit window (first two weeks
 * burn-in): the first point of the grid, replaced by a later one only when it is better by more
 * than rounding. Four points at a time (`etsSse4`), chosen among in the grid's order.
 */
function etsFit(values: ArrayLike<number>, end: number, init: EtsState): EtsParams {
  const x = Float64Array.from({ length: end }, (_, t) => values[t] ?? 0);
  let best = ETS_GRID[0] as EtsParams;
  let bestSse = Number.POSITIVE_INFINITY;
  const season = new Float64Array(LANES * M);
  const sse = new Float64Array(LANES);
  for (let from = 0; from < ETS_GRID.length; from += LANES) {
    // A lane stopped at this bound is not chosen by any later, lower one either.
    etsSse4(x, end, from, init, 2 * M, season, bestSse * (1 - 1e-9), sse);
    for (let k = 0; k < LANES && from + k < ETS_GRID.length; k++) {
      const q = sse[k] as number;
      if (q < bestSse * (1 - 1e-9) || bestSse === Number.POSITIVE_INFINITY) {
        bestSse = q;
        best = ETS_GRID[from + k] as EtsParams;
      }
    }
  }
  return best;
}

export const ets: Candidate = {
  name: 'ets',
  run(x, fitEnd, origins, horizon) {
    const init = etsInit(x, fitEnd);
    const p = etsFit(x, fitEnd, init);
    const wanted = new Set(origins);
    const paths: Paths = new Map();
    const row = pathRows(wanted.size, horizon);
    let { level, trend } = init;
    const season = init.season.slice();
    const record = (o: number) => {
      const f = row();
      let damp = 0;
      let phiH = 1;
      for (let h = 1; h <= horizon; h++) {
        phiH *= p.phi;
        damp += phiH;
        f[h - 1] = level + damp * trend + (season[(o + h - 1) % M] ?? 0);
      }
      paths.set(o, f);
    };
    for (let t = 0; t < x.length; t++) {
      if (wanted.has(t)) record(t);
      const i = t % M;
      const s = season[i] ?? 0;
      const e = (x[t] ?? 0) - (level + p.phi * trend + s);
      level = level + p.phi * trend + p.alpha * e;
      trend = p.phi * trend + p.beta * e;
      season[i] = s + p.gamma * e;
    }
    if (wanted.has(x.length)) record(x.length);
    return paths;
  },
};

// ---------------------------------------------------------------------------------------------
// Theta (Hyndman & Billah's SES with drift, drift = half the least-squares slope), on the series
// seasonally adjusted by additive weekday indices.

/** Additive weekday indices from the last (up to) eight whole weeks before `end`. */
function weekdayIndices(x: readonly number[], end: number): number[] {
  const weeks = Math.min(8, Math.floor(end / M));
  const idx = new Array<number>(M).fill(0);
  for (let w = 1; w <= weeks; w++) {
    const start = end - w * M;
    let mean = 0;
    for (let t = start; t < start + M; t++) mean += (x[t] ?? 0) / M;
    for (let t = start; t < start + M; t++) idx[t % M] = (idx[t % M] ?? 0) + ((x[t] ?? 0) - mean) / weeks;
  }
  return idx;
}

/** Least-squares slope of y over x[from, end). */
function slope(x: readonly number[], from: number, end: number, adj: readonly number[]): number {
  const n = end - from;
  if (n < 2) return 0;
  const tm = (from + end - 1) / 2;
  let ym = 0;
  for (let t = from; t < end; t++) ym += (x[t] ?? 0) - (adj[t % M] ?? 0);
  ym /= n;
  let sxy = 0;
  let sxx = 0;
  for (let t = from; t < end; t++) {
    sxy += (t - tm) * ((x[t] ?? 0) - (adj[t % M] ?? 0) - ym);
    sxx += (t - tm) * (t - tm);
  }
  return sxx ? sxy / sxx : 0;
}

const THETA_ALPHAS = [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8];

export const theta: Candidate = {
  name: 'theta',
  run(x, fitEnd, origins, horizon) {
    const idx = weekdayIndices(x, fitEnd);
    const drift = slope(x, Math.max(0, fitEnd - 365), fitEnd, idx) / 2;
    const d = (t: number) => (x[t] ?? 0) - (idx[t % M] ?? 0);
    let alpha = 0.2;
    let bestSse = Number.POSITIVE_INFINITY;
    for (const a of THETA_ALPHAS) {
      let level = d(0);
      let sse = 0;
      for (let t = 1; t < fitEnd; t++) {
        const e = d(t) - (level + drift);
        if (t >= M) sse += e * e;
        level = level + drift + a * e;
      }
      if (sse < bestSse) {
        bestSse = sse;
        alpha = a;
      }
    }
    const wanted = new Set(origins);
    const paths: Paths = new Map();
    const row = pathRows(wanted.size, horizon);
    let level = d(0);
    const record = (o: number) => {
      const f = row();
      for (let h = 1; h <= horizon; h++) f[h - 1] = level + h * drift + (idx[(o + h - 1) % M] ?? 0);
      paths.set(o, f);
    };
    for (let t = 1; t <= x.length; t++) {
      if (wanted.has(t)) record(t);
      if (t === x.length) break;
      const e = d(t) - (level + drift);
      level = level + drift + alpha * e;
    }
    return paths;
  },
};

/** The mean of the ETS and Theta forecasts (combinations are the most robust choice in M3/M4). */
export const etsTheta: Candidate = {
  name: 'ets-theta',
  run(x, fitEnd, origins, horizon, done) {
    const a = done?.get('ets') ?? ets.run(x, fitEnd, origins, horizon);
    const b = done?.get('theta') ?? theta.run(x, fitEnd, origins, horizon);
    const out: Paths = new Map();
    const row = pathRows(a.size, horizon);
    for (const [o, fa] of a) {
      const fb = b.get(o) ?? fa;
      const f = row();
      for (let i = 0; i < horizon; i++) f[i] = ((fa[i] ?? 0) + (fb[i] ?? fa[i] ?? 0)) / 2;
      out.set(o, f);
    }
    return out;
  },
};

/** Weekly seasonal naive: each day is the same weekday of the last observed week. */
export const seasonalNaive: Candidate = {
  name: 'seasonal-naive',
  run(x, _fitEnd, origins, horizon) {
    const paths: Paths = new Map();
    const row = pathRows(origins.length, horizon);
    for (const o of origins) {
      const f = row();
      for (let h = 1; h <= horizon; h++) f[h - 1] = x[o + h - 1 - M * Math.ceil(h / M)] ?? 0;
      paths.set(o, f);
    }
    return paths;
  },
};

/** The legacy four-week same-weekday mean (`forecastDays`), over day indices. */
export const weekdayMean: Candidate = {
  name: 'weekday-mean',
  run(x, _fitEnd, origins, horizon) {
    const paths: Paths = new Map();
    for (const o of origins)
      paths.set(
        o,
        weekdayMeans((t) => x[t] ?? 0, o - 1, horizon),
      );
    return paths;
  },
};

export const CANDIDATES: readonly Candidate[] = [ets, theta, etsTheta, seasonalNaive, weekdayMean];

// ---------------------------------------------------------------------------------------------
// Calendar-day effects: a charge on the 1st and on the last day of each month.

export interface CalendarEffects {
  /** Added to the 1st of every month. */
  monthStart: number;
  /** Added to the last day of every month. */
  monthEnd: number;
}

/**
 * The month-start and month-end effects in `y[0, end)`: for each month, the day's excess over the
 * mean of the same weekday a week before and a week after (so the weekly pattern cancels).
 * The long-run effect is the median excess over all the months, kept when at least two months
 * show it and it stands out of the noise: |median| > 3 × 1.25 × sd₀ / √months, sd₀ being the
 * spread of the same excess on ordinary days (1.25: the median's standard error over the mean's;
 * a MAD would be 0 on a sparse series' repeated values and let noise through). The last three
 * months can override it: when at least two of them stand out on their own (|excess| > 3 × sd₀,
 * same sign) and their mean is off the long-run effect by over 3 × sd₀ / √k, the charge changed
 * (a support plan raised) and is forecast at that mean; when none of them stands out and their
 * mean is off by over 3 × sd₀ / √3, the charge stopped and is not forecast.
 * `forecast` is added to the forecast's days; `history` marks the past days taken out of the
 * series the methods fit (a stopped or changed charge's old days too).
 */
export function calendarEffects(
  y: readonly number[],
  days: readonly number[],
  end: number,
): { forecast: CalendarEffects; history: CalendarEffects } {
  const excessAt = (t: number) => {
    const around = [t - M, t + M].filter((u) => u >= 0 && u < end);
    return around.length ? (y[t] ?? 0) - around.reduce((a, u) => a + (y[u] ?? 0), 0) / around.length : null;
  };
  let ss = 0;
  let k = 0;
  for (let t = 0; t < end; t++) {
    const day = days[t] ?? 0;
    if (isMonthStart(day) || isMonthEnd(day)) continue;
    const e = excessAt(t);
    if (e === null) continue;
    ss += e * e;
    k++;
  }
  const sd0 = k > 1 ? Math.sqrt(ss / (k - 1)) : 0;
  const effect = (pick: (day: number) => boolean) => {
    const out: number[] = [];
    for (let t = 0; t < end; t++) {
      if (!pick(days[t] ?? 0)) continue;
      const e = excessAt(t);
      if (e !== null) out.push(e);
    }
    if (out.length < 2) return { forecast: 0, history: 0 };
    const m = median(out);
    const longRun = Math.abs(m) > (3 * 1.25 * sd0) / Math.sqrt(out.length) ? m : 0;
    const recent = out.slice(-3);
    for (const sign of [1, -1]) {
      const charges = recent.filter((e) => sign * e > 3 * sd0);
      if (charges.length < 2) continue;
      const latest = charges.reduce((a, b) => a + b, 0) / charges.length;
      // A charge that changed: the recent months' mean is off the long-run one beyond its noise.
      if (Math.abs(latest - longRun) > (3 * sd0) / Math.sqrt(charges.length))
        return { forecast: latest, history: longRun || latest };
    }
    // A charge that stopped: none of the last three months shows it, and their mean is off it.
    const stopped =
      longRun !== 0 &&
      recent.length === 3 &&
      recent.every((e) => Math.sign(longRun) * e <= 3 * sd0) &&
      Math.abs(recent.reduce((a, b) => a + b, 0) / 3 - longRun) > (3 * sd0) / Math.sqrt(3);
    return { forecast: stopped ? 0 : longRun, history: longRun };
  };
  const start = effect(isMonthStart);
  const end_ = effect(isMonthEnd);
  return {
    forecast: { monthStart: start.forecast, monthEnd: end_.forecast },
    history: { monthStart: start.history, monthEnd: end_.history },
  };
}

const MONTH_START = 1;
const MONTH_END = 2;
/** Epoch days the calendar table covers: 1970-01-01 up to 2199-12-31. */
const TABLE_DAYS = 84_006;
let calendarTable: Uint8Array | undefined;

/**
 * Whether an epoch day is the 1st (`MONTH_START`) and/or the last day (`MONTH_END`) of a month.
 * The model asks it for every day of every series several times over; the days of 1970–2199 are
 * laid out once (the first time) in a table, other days computed.
 */
function calendarKind(day: number): number {
  if (day >= 0 && day < TABLE_DAYS) {
    if (!calendarTable) {
      const table = new Uint8Array(TABLE_DAYS);
      for (let d = 0; d < TABLE_DAYS; d++)
        table[d] = (dayOfMonth(d) === 1 ? MONTH_START : 0) | (dayOfMonth(d + 1) === 1 ? MONTH_END : 0);
      calendarTable = table;
    }
    return calendarTable[day] ?? 0;
  }
  return (dayOfMonth(day) === 1 ? MONTH_START : 0) | (dayOfMonth(day + 1) === 1 ? MONTH_END : 0);
}

/** Epoch day (days since 1970-01-01) → is the 1st of a month. */
export function isMonthStart(day: number): boolean {
  return (calendarKind(day) & MONTH_START) !== 0;
}

/** Epoch day → is the last day of a month. */
export function isMonthEnd(day: number): boolean {
  return (calendarKind(day) & MONTH_END) !== 0;
}

/** The calendar effect on an epoch day. */
export function calendarOn(day: number, c: CalendarEffects): number {
  const kind = calendarKind(day);
  return (kind & MONTH_START ? c.monthStart : 0) + (kind & MONTH_END ? c.monthEnd : 0);
}
