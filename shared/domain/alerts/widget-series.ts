import type { AlertThreshold, StoredAlert } from '../../model/alerts';
import { replay } from './rule';
import type { AlertSeriesSource } from './series';

/** Days of series the widget data answers, ending on the last complete day. */
export const WIDGET_SERIES_DAYS = 30;

/**
 * The alert's recent series as `GET …/widgetData` answers it (docs/alerts.md), so a client can plot
 * the queries with the rule drawn over them: each query's daily value (groups summed), the
 * condition's 1/0 series and its baselines (condition alerts) or the thresholds (threshold
 * variants), and, per day, whether the alert would have fired had that day been the last complete one.
 */
export interface AlertWidgetSeries {
  /** The last complete day of billing data: the day the next evaluation decides on. */
  dataThrough: string;
  aggBy: 'Day';
  dates: string[];
  queries: { name: string; values: (number | null)[] }[];
  /** Condition alerts: 1 where the condition holds (for any group), else 0. */
  condition?: (0 | 1)[];
  /** Condition alerts: each window function over a query, e.g. `rollingMedian(ec2,28,DAY)`. */
  baselines?: { key: string; values: (number | null)[] }[];
  /** Threshold variants: the lines to draw (per `evaluationPeriod`; PERIOD_CHANGE: a change). */
  thresholds?: Pick<AlertThreshold, 'value' | 'severityLevel' | 'metricMode' | 'changeBasis'>[];
  /** Per date: the rule holds when that day is the evaluated day. */
  triggered: boolean[];
  /** Per date: the rule holds and the value clears `minCost` (before snooze and dedup). */
  fired: boolean[];
}

export async function widgetSeries(
  alert: StoredAlert,
  thresholds: readonly AlertThreshold[],
  source: AlertSeriesSource,
  now: Date,
): Promise<AlertWidgetSeries | null> {
  const series = await source.read(alert, { now, days: WIDGET_SERIES_DAYS });
  if (!series) return null;
  const days = replay(alert, thresholds, series, WIDGET_SERIES_DAYS);
  const dates = days.map((d) => d.day);
  const pick = (vals: readonly (number | null)[] | undefined) =>
    dates.map((d) => vals?.[series.days.indexOf(d)] ?? null);
  const out: AlertWidgetSeries = {
    dataThrough: series.dataThrough,
    aggBy: 'Day',
    dates,
    queries: alert.queries.map((q) => ({ name: q.name, values: pick(series.values[q.name]) })),
    triggered: days.map((d) => d.triggered),
    fired: days.map((d) => d.fired),
  };
  if (alert.variant === 'CONDITION') {
    out.condition = pick(series.condition).map((v) => (v === 1 ? 1 : 0));
    out.baselines = Object.entries(series.baselines ?? {}).map(([key, vals]) => ({
      key,
      values: pick(vals),
    }));
  } else {
    out.thresholds = thresholds.map(({ value, severityLevel, metricMode, changeBasis }) => ({
      value,
      severityLevel,
      metricMode,
      changeBasis,
    }));
  }
  return out;
}
