import type { StoredAlert } from '../../model/alerts';

/** Daily series of an alert, as the query engine answers them (one value per day, aligned with `days`). */
export interface AlertSeries {
  /** The last complete day of billing data (the engine's `dataThrough`). */
  dataThrough: string;
  /** Every day of the series, ascending (`YYYY-MM-DD`), through at least `dataThrough`. */
  days: string[];
  /** Each query's daily values by query name (groups summed). */
  values: Record<string, (number | null)[]>;
  /** Condition alerts: the condition's 1/0 value per day. */
  condition?: (number | null)[];
  /** Condition alerts: the condition's window functions per day, keyed as `baselineKey` spells them. */
  baselines?: Record<string, (number | null)[]>;
}

/**
 * Reads an alert's daily series (the engine-backed one is `createEngineSeriesSource`) through the
 * last complete day, from the first day its evaluation needs; with `days: n`, enough for evaluating
 * each of the n days ending on the last complete day (widget data, backtest). Null: the
 * organisation has no recent billing data, so there is no complete day to evaluate.
 */
export interface AlertSeriesSource {
  read(alert: StoredAlert, opts: { now: Date; days?: number }): Promise<AlertSeries | null>;
  /** Announces alerts about to be read with the same options, so those asking the same queries share reads. */
  prepare?(alerts: readonly StoredAlert[], opts: { now: Date; days?: number }): void;
}
