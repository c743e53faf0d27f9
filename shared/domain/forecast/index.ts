/** The forecasting model: see docs/forecasting.md. */
export {
  type DailyColumns,
  type DailyHistory,
  FORECAST_BACKTEST_ORIGINS,
  FORECAST_MIN_HISTORY_DAYS,
  type Forecast,
  type ForecastAccuracy,
  type ForecastOptions,
  type ForecastPoint,
  type ForecastSelection,
  forecastSeries,
  type MethodName,
  selectionOf,
  seriesFingerprint,
} from './forecast';
export { FORECAST_HISTORY_DAYS, forecastDays } from './legacy';
export { type ForecastTotal, forecastTotal } from './total';
