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
  const out: { day: number; value: number }[] = [];
  for (let k = 1; k <= days; k++) {
    const day = dataThrough + k * DAY_MS;
    let sum = 0;
    let n = 0;
    // Same weekday in the four weeks up to dataThrough.
    let back = day - 7 * DAY_MS * Math.ceil(k / 7);
    for (; back > dataThrough - FORECAST_HISTORY_DAYS * DAY_MS; back -= 7 * DAY_MS) {
      sum += daily.get(new Date(back).toISOString().slice(0, 10)) ?? 0;
      n++;
    }
    out.push({ day, value: n ? sum / n : 0 });
  }
  return out;
}
