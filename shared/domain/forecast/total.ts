/**
 * `forecastTotal`: the total of a bucket of days, partly actual and partly forecast, with its
 * interval on the whole bucket (docs/forecasting.md, "Prediction intervals": bucket totals).
 */
import { errorQuantiles, sortedQuantiles } from './accuracy';
import { toDay } from './days';
import { type DailyHistory, errorModelOf, type Forecast, type ForecastPoint } from './forecast';

export interface ForecastTotal {
  from: string;
  to: string;
  /** Sum of the actual days in the bucket (up to the forecast's history end). */
  actual: number;
  /** Sum of the forecast days in the bucket. */
  forecast: number;
  /** actual + forecast, and its intervals (on the whole bucket). */
  value: number;
  lower80: number;
  upper80: number;
  lower95: number;
  upper95: number;
  actualDays: number;
  forecastDays: number;
}

/**
 * The total of the days `from` … `to` (inclusive): days up to the forecast's history end are the
 * actuals from `history`, later ones the forecast. The interval is on that whole total: the
 * empirical quantiles of the backtest's error summed over the same horizons (one sum per origin),
 * so the errors' correlation across days is kept; beyond the backtest horizon the sums are scaled
 * up linearly in days (fully correlated errors). A bucket without forecast days has no width.
 */
export function forecastTotal(
  forecast: Forecast,
  history: DailyHistory,
  from: string,
  to: string,
): ForecastTotal {
  const a = toDay(from);
  const b = toDay(to);
  const end = forecast.history.to ? toDay(forecast.history.to) : toDay(forecast.points[0]?.date ?? from) - 1;
  let actual = 0;
  let actualDays = 0;
  if (a <= end) {
    if ('from' in history) {
      const from = toDay(history.from);
      for (let d = Math.max(a, from); d <= Math.min(b, end, from + history.values.length - 1); d++)
        actual += history.values[d - from] ?? 0;
    } else
      for (const r of history) {
        const d = toDay(r.date);
        if (d >= a && d <= b && d <= end) actual += r.value;
      }
  }
  for (let d = Math.max(a, end - forecast.history.days + 1); d <= Math.min(b, end); d++) actualDays++;
  const h1 = Math.max(1, a - end);
  const h2 = b - end;
  let sum = 0;
  for (let h = h1; h <= h2; h++) {
    const p = forecast.points[h - 1];
    if (!p) throw new RangeError(`forecast: ${to} is past the forecast's last day`);
    sum += p.value;
  }
  const value = actual + sum;
  const base = { from, to, actual, forecast: sum, value, actualDays, forecastDays: Math.max(0, h2 - h1 + 1) };
  if (h2 < h1) return { ...base, lower80: value, upper80: value, lower95: value, upper95: value };
  const model = errorModelOf(forecast);
  const nonNegative = model?.nonNegative ?? false;
  const floor = (v: number) => (nonNegative ? Math.max(actual, v) : v);
  const within = ([q025, q10, q90, q975]: [number, number, number, number]): ForecastTotal => ({
    ...base,
    lower80: floor(value + q10),
    upper80: floor(value + q90),
    lower95: floor(value + q025),
    upper95: floor(value + q975),
  });
  const sums: number[] = [];
  const column = h1 === h2 ? model?.columns[h1 - 1] : undefined;
  if (column) {
    // One day within the backtest's horizon (a daily bucket): its sums are that horizon's errors,
    // already sorted.
    if (column.length >= 10) return within(sortedQuantiles(column, column.length));
  } else if (model) {
    const top = Math.min(h2, model.horizon);
    for (const e of model.errors.values()) {
      let s = 0;
      let ok = h1 <= top;
      for (let h = h1; h <= top && ok; h++) {
        const v = e[h - 1] ?? Number.NaN;
        if (Number.isNaN(v)) ok = false;
        else s += v;
      }
      if (ok) sums.push((s * (h2 - h1 + 1)) / (top - h1 + 1));
    }
  }
  if (sums.length >= 10) return within(errorQuantiles(Float64Array.from(sums)));
  // No usable backtest (short history, or a bucket starting past it): the points' interval
  // half-widths added up (fully correlated days, the wide side).
  let l80 = 0;
  let u80 = 0;
  let l95 = 0;
  let u95 = 0;
  for (let h = h1; h <= h2; h++) {
    const p = forecast.points[h - 1] as ForecastPoint;
    l80 += p.value - p.lower80;
    u80 += p.upper80 - p.value;
    l95 += p.value - p.lower95;
    u95 += p.upper95 - p.value;
  }
  return {
    ...base,
    lower80: floor(value - l80),
    upper80: value + u80,
    lower95: floor(value - l95),
    upper95: value + u95,
  };
}
