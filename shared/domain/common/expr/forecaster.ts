import type { PeriodForecaster } from './grouped-series';
import type { Expression } from './parse';

/**
 * The forecasting model behind `forecast(…)`, imported when first needed (its own chunk in a
 * code-split bundle): most answers have no forecast, and their functions' cold starts do not load
 * the model.
 */
export async function loadPeriodForecaster(): Promise<PeriodForecaster> {
  return (await import('./period-forecast')).forecastEndOfPeriod;
}

/** The model when any of the expressions calls `forecast(…)`, else undefined (nothing loaded). */
export async function forecasterFor(exprs: readonly Expression[]): Promise<PeriodForecaster | undefined> {
  return exprs.some((e) => e.forecasts) ? loadPeriodForecaster() : undefined;
}
