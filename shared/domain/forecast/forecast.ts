/**
 * `forecastSeries`: a daily forecast with 80 % and 95 % prediction intervals and the accuracy of
 * its own rolling-origin backtest; `forecastTotal`: the total of a bucket of days (partly actual,
 * partly forecast) with its interval. Pure: no I/O, no clock. See docs/forecasting.md.
 */
import { accuracyOf, type ForecastAccuracy, horizonQuantiles } from './accuracy';
import { toDate, toDay } from './days';
import {
  CANDIDATES,
  type CalendarEffects,
  type Candidate,
  calendarEffects,
  calendarOn,
  type MethodName,
  type Paths,
  pathRows,
  seasonalNaive,
} from './methods';

export type { ForecastAccuracy } from './accuracy';
export type { MethodName } from './methods';

/** Fewer days than this and the model falls back to the weekday mean (`fallback` says so). */
export const FORECAST_MIN_HISTORY_DAYS = 56;
/** Backtest origins: one per day over the last twelve weeks whose horizon is in the history. */
export const FORECAST_BACKTEST_ORIGINS = 84;
/** The shortest history a method's parameters are fitted on in the backtest. */
const MIN_FIT_DAYS = 28;

export interface ForecastOptions {
  /** Days to forecast after the last day of history (1 … 1095). */
  horizonDays: number;
  /**
   * The last day of complete data (`YYYY-MM-DD`); days after the last history row up to it count
   * as 0. Default: the last history date.
   */
  dataThrough?: string;
  /** Force a method instead of the backtest's choice (the benchmark's baselines use it). */
  method?: MethodName;
  /** A selection this series' backtest made before (`selectionOf`): used when it fits. */
  selection?: ForecastSelection;
}

export interface ForecastPoint {
  date: string;
  value: number;
  lower80: number;
  upper80: number;
  lower95: number;
  upper95: number;
}

export interface Forecast {
  /** One point per day after `dataThrough`. */
  points: ForecastPoint[];
  /** The method that forecast (the backtest's best, or the fallback). */
  method: MethodName;
  /** The history used: first and last day, and its length in days. */
  history: { from: string; to: string; days: number };
  /** Month-start and month-end charges found in the history and added to those days. */
  calendar: CalendarEffects;
  /** Backtest figures; null when the history was too short to backtest (see `fallback`). */
  accuracy: ForecastAccuracy | null;
  /** Backtest errors of every candidate method (the lowest `rmse` is chosen). */
  candidates: { method: MethodName; mae: number; rmse: number }[];
  /** Set when the model could not run as designed. */
  fallback?: { reason: 'short-history'; detail: string };
}

/** Backtest errors (actual - forecast), kept out of JSON for `forecastTotal`. */
export interface ErrorModel {
  /** errors.get(o)[h-1]: error of the forecast made at origin o for day o+h-1 (NaN past the history). */
  errors: Map<number, Float64Array>;
  horizon: number;
  /** Per-horizon error quantiles [q2.5, q10, q90, q97.5] for h = 1 … points.length. */
  quantiles: [number, number, number, number][];
  /** columns[h-1]: the errors at horizon h over every origin, NaN left out, sorted. */
  columns: Float64Array[];
  nonNegative: boolean;
}
const ERROR_MODEL = Symbol('errorModel');
type WithErrors = Forecast & { [ERROR_MODEL]?: ErrorModel };

/** The backtest errors a forecast's intervals were made of (none for a short history). */
export function errorModelOf(forecast: Forecast): ErrorModel | undefined {
  return (forecast as WithErrors)[ERROR_MODEL];
}

/**
 * A daily history as columns: `values[k]` is the value of the day `k` days after `from`
 * (`YYYY-MM-DD`). The same days as rows without an object and a date string per day (a grouped
 * explorer forecast reads a year of days for each of up to 100 groups).
 */
export interface DailyColumns {
  from: string;
  /** null: a day without data (0). */
  values: ArrayLike<number | null>;
}

/** A history: rows (any order, duplicate dates summed, gaps 0) or columns. */
export type DailyHistory = readonly { date: string; value: number }[] | DailyColumns;

/** A gap-free daily series from the history (duplicate dates summed, gaps 0). */
function dailySeries(history: DailyHistory, dataThrough: string | undefined): { first: number; y: number[] } {
  if ('from' in history) return dailyColumns(history, dataThrough);
  const sums = new Map<number, number>();
  for (const r of history) {
    if (!Number.isFinite(r.value))
      throw new RangeError(`forecast: value of ${r.date} is not a finite number`);
    const d = toDay(r.date);
    if (!Number.isFinite(d)) throw new RangeError(`forecast: ${r.date} is not a YYYY-MM-DD date`);
    sums.set(d, (sums.get(d) ?? 0) + r.value);
  }
  const days = [...sums.keys()];
  const last = dataThrough ? toDay(dataThrough) : days.length ? Math.max(...days) : Number.NaN;
  if (!Number.isFinite(last)) return { first: 0, y: [] };
  const first = days.length ? Math.min(...days) : last + 1;
  const y: number[] = [];
  for (let d = first; d <= last; d++) y.push(sums.get(d) ?? 0);
  return { first, y };
}

/** `dailySeries` of columns: the values up to `dataThrough` (days after the last value: 0). */
function dailyColumns(
  history: DailyColumns,
  dataThrough: string | undefined,
): { first: number; y: number[] } {
  const first = toDay(history.from);
  if (!Number.isFinite(first)) throw new RangeError(`forecast: ${history.from} is not a YYYY-MM-DD date`);
  const { values } = history;
  const last = dataThrough ? toDay(dataThrough) : first + values.length - 1;
  if (!Number.isFinite(last)) return { first: 0, y: [] };
  const n = Math.max(0, last - first + 1);
  const y = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    const v = k < values.length ? (values[k] ?? 0) : 0;
    if (!Number.isFinite(v))
      throw new RangeError(`forecast: value of ${toDate(first + k)} is not a finite number`);
    y[k] = v;
  }
  return { first, y };
}

/**
 * What a series' backtest chose and the forecast it made, reusable for the same history (same
 * days and values: its key holds a fingerprint of them) and horizon: a caller asking again for the
 * same series (the explorer, per group) passes it back as `ForecastOptions.selection` and skips the
 * backtest and the fit. On other data it is ignored. Opaque.
 */
export interface ForecastSelection {
  readonly key: string;
}
interface Selection extends ForecastSelection {
  candidate: Candidate;
  errors: Map<number, Float64Array>;
  hb: number;
  quantiles: [number, number, number, number][];
  columns: Float64Array[];
  accuracy: ForecastAccuracy;
  candidates: Forecast['candidates'];
  /** The forecast made on the whole history (kept once made). */
  path?: Float64Array;
  cal?: CalendarEffects;
}
const SELECTION = Symbol('selection');

/** The selection a forecast was made with, to pass back as `ForecastOptions.selection`. */
export function selectionOf(forecast: Forecast): ForecastSelection | undefined {
  return (forecast as Forecast & { [SELECTION]?: Selection })[SELECTION];
}

/**
 * Forecasts `horizonDays` days after the history. Every candidate method is backtested on the
 * series' own last twelve weeks (one origin per day, parameters fitted before the window, states
 * updated as the days come in) at the requested horizon; the one with the lowest root mean squared
 * error forecasts, and its backtest errors at each horizon give the intervals (empirical
 * quantiles) and the accuracy figures. A `selection` of the same history and horizon skips the
 * backtest.
 */
export function forecastSeries(history: DailyHistory, options: ForecastOptions): Forecast {
  const horizon = options.horizonDays;
  if (!Number.isInteger(horizon) || horizon < 1 || horizon > 1095)
    throw new RangeError('forecast: horizonDays must be an integer from 1 to 1095');
  const { first, y } = dailySeries(history, options.dataThrough);
  const n = y.length;
  const historyInfo = { from: n ? toDate(first) : '', to: n ? toDate(first + n - 1) : '', days: n };
  if (!n && !options.dataThrough) throw new RangeError('forecast: no history and no dataThrough');
  const last = n ? first + n - 1 : toDay(options.dataThrough as string);
  if (n < FORECAST_MIN_HISTORY_DAYS) return shortHistory(y, last, horizon, historyInfo);

  const nonNegative = y.every((v) => v >= 0);
  const clip = (v: number) => (nonNegative && v < 0 ? 0 : v);
  const key = `${first}:${n}:${horizon}:${options.method ?? ''}:${seriesFingerprint(y)}`;
  const given = options.selection as Selection | undefined;
  const sel = given?.key === key && given.candidate ? given : select(y, first, horizon, key, options.method);

  // The forecast: the chosen method refitted on the whole history.
  if (!sel.path || !sel.cal) {
    const cal = calendarEffects(
      y,
      y.map((_, t) => first + t),
      n,
    );
    sel.cal = cal.forecast;
    const x = withoutCalendar(y, first, cal.history);
    sel.path = sel.candidate.run(x, n, [n], horizon).get(n) ?? new Float64Array(horizon);
  }
  const { cal, path } = sel;
  const points = Array.from({ length: horizon }, (_, i) => {
    const day = last + i + 1;
    const value = clip((path[i] ?? 0) + calendarOn(day, cal));
    const [q025, q10, q90, q975] = sel.quantiles[i] ?? [0, 0, 0, 0];
    return {
      date: toDate(day),
      value,
      lower80: clip(value + q10),
      upper80: clip(value + q90),
      lower95: clip(value + q025),
      upper95: clip(value + q975),
    };
  });
  const result: WithErrors = {
    points,
    method: sel.candidate.name,
    history: historyInfo,
    calendar: cal,
    accuracy: sel.accuracy,
    candidates: sel.candidates,
  };
  Object.defineProperty(result, ERROR_MODEL, {
    value: {
      errors: sel.errors,
      horizon: sel.hb,
      quantiles: sel.quantiles,
      columns: sel.columns,
      nonNegative,
    } satisfies ErrorModel,
    enumerable: false,
  });
  Object.defineProperty(result, SELECTION, { value: sel, enumerable: false });
  return result;
}

/**
 * Two 32-bit FNV-1a hashes of the values (to 12 significant digits: a warehouse's parallel sums
 * differ in their last bits from one read to the next), as hex: the data a selection was made on.
 */
export function seriesFingerprint(y: readonly number[]): string {
  const words = new Uint32Array(
    Float64Array.from(y, (v) => (v === 0 ? 0 : Number(v.toPrecision(12)))).buffer,
  );
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? 0;
    a = Math.imul(a ^ w, 0x01000193) >>> 0;
    b = Math.imul(b ^ (w + i), 0x5bd1e995) >>> 0;
  }
  return `${a.toString(16)}${b.toString(16)}`;
}

/** The rolling-origin backtest of every candidate (or the forced one) and its best by RMSE. */
function select(
  y: readonly number[],
  first: number,
  horizon: number,
  key: string,
  method: MethodName | undefined,
): Selection {
  const n = y.length;
  const nonNegative = y.every((v) => v >= 0);
  const clip = (v: number) => (nonNegative && v < 0 ? 0 : v);
  // Backtest horizon and window: the requested horizon when the history allows a fit window of
  // four weeks and two weeks of origins, else shortened (accuracy.horizonDays says so).
  const hb = Math.min(horizon, n - MIN_FIT_DAYS - 14);
  const window = Math.min(FORECAST_BACKTEST_ORIGINS, n - MIN_FIT_DAYS - hb);
  const fitEnd = n - hb - window;
  const origins: number[] = [];
  for (let o = fitEnd; o < n; o++) origins.push(o);

  // Calendar effects found before the window, removed from the series the methods see.
  const calBt = calendarEffects(
    y,
    y.map((_, t) => first + t),
    fitEnd,
  );
  const xBt = withoutCalendar(y, first, calBt.history);
  const calAt = Float64Array.from(y, (_, t) => calendarOn(first + t, calBt.forecast));
  const errorsOf = (paths: Paths) => {
    const errors = new Map<number, Float64Array>();
    const row = pathRows(paths.size, hb);
    for (const [o, f] of paths) {
      const e = row().fill(Number.NaN);
      for (let h = 1; h <= hb && o + h - 1 < n; h++)
        e[h - 1] = (y[o + h - 1] ?? 0) - clip((f[h - 1] ?? 0) + (calAt[o + h - 1] ?? 0));
      errors.set(o, e);
    }
    return errors;
  };
  const done = new Map<MethodName, Paths>();
  const scored = CANDIDATES.filter((c) => !method || c.name === method).map((c) => {
    const paths = c.run(xBt, fitEnd, origins, hb, done);
    done.set(c.name, paths);
    const errors = errorsOf(paths);
    return { candidate: c, errors, ...scoreOf(errors) };
  });
  // Root mean squared error: minimised by the mean, which is what totals add up (the absolute
  // error would favour a median, 0 on a sparse series).
  const best = scored.reduce((a, b) => (b.rmse < a.rmse ? b : a));
  const naive =
    scored.find((s) => s.candidate.name === 'seasonal-naive')?.errors ??
    errorsOf(seasonalNaive.run(xBt, fitEnd, origins, hb));
  const columns: Float64Array[] = [];
  return {
    key,
    candidate: best.candidate,
    errors: best.errors,
    hb,
    quantiles: horizonQuantiles(best.errors, hb, horizon, origins, columns),
    columns,
    accuracy: accuracyOf(best.errors, naive, y, fitEnd, hb, first),
    candidates: scored.map((s) => ({ method: s.candidate.name, mae: s.mae, rmse: s.rmse })),
  };
}

/** Mean absolute and root mean squared backtest error (NaN: past the history, not counted). */
function scoreOf(errors: Map<number, Float64Array>): { mae: number; rmse: number } {
  let abs = 0;
  let sq = 0;
  let k = 0;
  for (const e of errors.values())
    for (const v of e)
      if (!Number.isNaN(v)) {
        abs += Math.abs(v);
        sq += v * v;
        k++;
      }
  return k ? { mae: abs / k, rmse: Math.sqrt(sq / k) } : { mae: Infinity, rmse: Infinity };
}

/**
 * The series the methods see: on a day with a calendar effect, the same weekday a week before
 * (the day minus the effect in the first week). Subtracting the effect would leave the charge's
 * own variation in, which seasonal naive would then copy to an ordinary day a week later.
 */
function withoutCalendar(y: readonly number[], first: number, cal: CalendarEffects): number[] {
  const x = y.slice();
  for (let t = 0; t < y.length; t++) {
    const c = calendarOn(first + t, cal);
    if (c !== 0) x[t] = t >= 7 ? (x[t - 7] ?? 0) : (y[t] ?? 0) - c;
  }
  return x;
}

/**
 * Under eight weeks of history: each future day is the mean of the same weekday over the whole
 * weeks available (the mean of all days under one week), and the intervals are normal ones from
 * the days' spread around those means, widened with the horizon (√(1 + h/7)). No accuracy.
 */
function shortHistory(
  y: readonly number[],
  last: number,
  horizon: number,
  history: Forecast['history'],
): Forecast {
  const n = y.length;
  const weeks = Math.floor(n / 7);
  const span = weeks ? weeks * 7 : n;
  const recent = y.slice(n - span);
  const mean = (vals: number[]) => (vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : 0);
  const start = last - span + 1;
  const byDay = (day: number) =>
    weeks ? mean(recent.filter((_, i) => (start + i - day) % 7 === 0)) : mean(recent);
  const fitted = recent.map((_, i) => byDay(start + i));
  const resid = recent.map((v, i) => v - (fitted[i] ?? 0));
  const sd = Math.sqrt(mean(resid.map((r) => r * r)) * (span > 1 ? span / (span - 1) : 1));
  const nonNegative = y.every((v) => v >= 0);
  const clip = (v: number) => (nonNegative && v < 0 ? 0 : v);
  const points = Array.from({ length: horizon }, (_, i) => {
    const day = last + i + 1;
    const value = byDay(day);
    const w = sd * Math.sqrt(1 + (i + 1) / 7);
    return {
      date: toDate(day),
      value,
      lower80: clip(value - 1.2816 * w),
      upper80: clip(value + 1.2816 * w),
      lower95: clip(value - 1.96 * w),
      upper95: clip(value + 1.96 * w),
    };
  });
  return {
    points,
    method: 'weekday-mean',
    history,
    calendar: { monthStart: 0, monthEnd: 0 },
    accuracy: null,
    candidates: [],
    fallback: {
      reason: 'short-history',
      detail: `${n} days of history, under the ${FORECAST_MIN_HISTORY_DAYS} the backtest needs: same-weekday mean of the available weeks, normal intervals, no accuracy figures`,
    },
  };
}
