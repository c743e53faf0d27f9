import { forecastSeries, forecastTotal } from '../../forecast';
import { FORECAST_LOOKBACK_DAYS, type ForecastBound } from './parse';

const DAY_MS = 86_400_000;

/**
 * `forecast(x, period)[d]` over one group's daily values: the total of the calendar WEEK (ISO) or
 * MONTH holding `d`, its days through `d` actual and the rest forecast by the forecasting model
 * from the values up to `d` (nulls count as 0, a day without rows). Null where fewer than
 * FORECAST_LOOKBACK_DAYS days precede `d` or every value up to `d` is null. With `bound`, that
 * bound of the total's 80 % prediction interval instead (on the last day of the period: the total).
 */
export function forecastEndOfPeriod(
  dates: readonly string[],
  values: Float64Array,
  unit: 'WEEK' | 'MONTH',
  bound?: ForecastBound,
): Float64Array {
  const out = new Float64Array(values.length).fill(Number.NaN);
  const first = dayMs(dates[0] ?? '');
  let seen = false;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isNaN(values[i] as number)) seen = true;
    const d = dayMs(dates[i] as string);
    if (!seen || (d - first) / DAY_MS < FORECAST_LOOKBACK_DAYS) continue;
    const day = new Date(d);
    const start =
      unit === 'MONTH'
        ? Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1)
        : d - ((day.getUTCDay() + 6) % 7) * DAY_MS;
    const end =
      unit === 'MONTH' ? Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 0) : start + 6 * DAY_MS;
    const history: { date: string; value: number }[] = [];
    for (let j = 0; j <= i; j++) {
      const v = values[j] as number;
      history.push({ date: dates[j] as string, value: Number.isNaN(v) ? 0 : v });
    }
    const horizon = Math.round((end - d) / DAY_MS);
    if (horizon === 0) {
      let sum = 0;
      for (const r of history) if (dayMs(r.date) >= start) sum += r.value;
      out[i] = sum;
      continue;
    }
    const f = forecastSeries(history, { horizonDays: horizon });
    out[i] = forecastTotal(f, history, ymdOf(start), ymdOf(end))[bound ?? 'value'];
  }
  return out;
}

const dayMs = (date: string) => Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
const ymdOf = (t: number) => new Date(t).toISOString().slice(0, 10);
