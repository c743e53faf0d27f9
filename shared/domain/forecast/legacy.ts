/**
 * The legacy forecast, kept as the named baseline `weekday-mean` (docs/queries.md, "Forecast"):
 * the explorer's `period.forecastDays` still uses it through `shared/domain/queries/explorer-forecast.ts`,
 * and the forecasting model offers it as one of its candidate methods.
 */
const DAY_MS = 86_400_000;

/** Days of history the forecast reads: four weeks, so each weekday is seen four times. */
export const FORECAST_HISTORY_DAYS = 28;

/**
 * The forecast method: each future day is the mean of the same weekday over the last four weeks
 * of complete data (the 28 days ending at `dataThrough`), missing days counting as 0. Daily
 * forecasts are then summed into the request's buckets. `daily` maps `YYYY-MM-DD` to the day's value.
 */
export function forecastDays(
  daily: ReadonlyMap<string, number>,
  dataThrough: number,
  days: number,
): { day: number; value: number }[] {
  const at = (i: number) => daily.get(new Date(dataThrough + i * DAY_MS).toISOString().slice(0, 10)) ?? 0;
  return Array.from(weekdayMeans(at, 0, days), (value, k) => ({
    day: dataThrough + (k + 1) * DAY_MS,
    value,
  }));
}

/**
 * The same rule over day indices: the forecast of days `last + 1 … last + days`, each the mean of
 * the same weekday in the four weeks up to day `last`; `at(i)` reads day i (0 when missing).
 */
export function weekdayMeans(at: (i: number) => number, last: number, days: number): Float64Array {
  const out = new Float64Array(days);
  for (let k = 1; k <= days; k++) {
    let sum = 0;
    let n = 0;
    for (let back = last + k - 7 * Math.ceil(k / 7); back > last - FORECAST_HISTORY_DAYS; back -= 7) {
      sum += at(back);
      n++;
    }
    out[k - 1] = n ? sum / n : 0;
  }
  return out;
}
