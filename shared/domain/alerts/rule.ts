import type { AlertThreshold, StoredAlert } from '../../model/alerts';
import type { AlertFiring } from './explain';
import { lastCompletePeriod, previousPeriod } from './schedule';
import type { AlertSeries } from './series';

/**
 * The alert rule, pure (no I/O): whether an alert fires on the last complete period of its series
 * (`decide`), whether a firing clears the noise floor (`clearsFloor`), and the decision replayed
 * over past days (`replay`: widget data, backtest). The evaluator (`evaluator.ts`) runs it in batch.
 */
export interface EvaluationResult {
  triggered: boolean;
  firing: AlertFiring;
  values: Record<string, number | null>;
}

/** A query's total over a period of the series (null: no value on any of its days). */
export function sumOver(series: AlertSeries, name: string, p: { start: string; end: string }): number | null {
  const vals = series.values[name];
  if (!vals) return null;
  let total = 0;
  let any = false;
  series.days.forEach((day, i) => {
    const v = vals[i];
    if (day >= p.start && day <= p.end && v !== null && v !== undefined) {
      total += v;
      any = true;
    }
  });
  return any ? total : null;
}

type FiringBase = Pick<AlertFiring, 'alert' | 'thresholds' | 'evaluatedDay' | 'appUrl'>;

function decideCondition(base: FiringBase, series: AlertSeries, idx: number): EvaluationResult {
  const at = (vals: (number | null)[] | undefined) => (idx >= 0 && vals ? (vals[idx] ?? null) : null);
  const { alert, evaluatedDay } = base;
  const values = Object.fromEntries(alert.queries.map((q) => [q.name, at(series.values[q.name])]));
  const baselines = Object.fromEntries(Object.entries(series.baselines ?? {}).map(([k, v]) => [k, at(v)]));
  const firing: AlertFiring = {
    ...base,
    period: { start: evaluatedDay, end: evaluatedDay },
    values,
    baselines,
  };
  return { triggered: at(series.condition) === 1, firing, values: { ...values, ...baselines } };
}

/** Pure: decides whether an alert fires on the last complete period of `series`. */
export function decide(
  alert: StoredAlert,
  thresholds: readonly AlertThreshold[],
  series: AlertSeries,
  appUrl: string,
): EvaluationResult {
  const evaluatedDay = series.dataThrough;
  const base: FiringBase = {
    alert,
    thresholds: thresholds.map(({ value, severityLevel, metricMode, changeBasis }) => ({
      value,
      severityLevel,
      metricMode,
      changeBasis,
    })),
    evaluatedDay,
    appUrl,
  };
  if (alert.variant === 'CONDITION') return decideCondition(base, series, series.days.indexOf(evaluatedDay));
  const period = lastCompletePeriod(alert.evaluationPeriod, series.dataThrough);
  const value = sumOver(series, alert.queryName, period);
  const above = alert.thresholdType === 'ABOVE';
  const crosses = (x: number | null, t: number) => x !== null && (above ? x > t : x < t);
  if (alert.variant === 'THRESHOLD') {
    const firing: AlertFiring = { ...base, period, values: { [alert.queryName]: value }, baselines: {} };
    return {
      triggered: thresholds.some((t) => crosses(value, t.value)),
      firing,
      values: { [alert.queryName]: value },
    };
  }
  const previous = sumOver(series, alert.queryName, previousPeriod(alert.evaluationPeriod, period));
  const delta = value !== null && previous !== null ? value - previous : null;
  const change = (t: AlertThreshold) =>
    t.changeBasis === 'PERCENTAGE' ? (delta !== null && previous ? (delta / previous) * 100 : null) : delta;
  const firing: AlertFiring = {
    ...base,
    period,
    values: { [alert.queryName]: value },
    baselines: {},
    previousValue: previous,
  };
  return {
    triggered: thresholds.some((t) => crosses(change(t), t.value)),
    firing,
    // `change` in currency; `changePercent` against the previous period (null when that was 0).
    values: {
      [alert.queryName]: value,
      previous,
      change: delta,
      changePercent: delta !== null && previous ? (delta / previous) * 100 : null,
    },
  };
}

/** Whether a triggered result clears the noise floor (`minCost`, compared with the alert's query value). */
export function clearsFloor(
  alert: Pick<StoredAlert, 'minCost' | 'queryName'>,
  result: EvaluationResult,
): boolean {
  if (alert.minCost === null) return true;
  const v = result.values[alert.queryName] ?? null;
  return v !== null && v >= alert.minCost;
}

/**
 * Replays the decision on each of the last `days` days of `series` as if each had been the last
 * complete day (widget data, backtest): `triggered` is the rule, `fired` also clears the noise floor.
 */
export function replay(
  alert: StoredAlert,
  thresholds: readonly AlertThreshold[],
  series: AlertSeries,
  days: number,
): { day: string; triggered: boolean; fired: boolean; result: EvaluationResult }[] {
  const end = series.days.indexOf(series.dataThrough);
  const first = Math.max(0, end - days + 1);
  return series.days.slice(first, end + 1).map((day) => {
    const result = decide(alert, thresholds, { ...series, dataThrough: day }, '');
    return {
      day,
      triggered: result.triggered,
      fired: result.triggered && clearsFloor(alert, result),
      result,
    };
  });
}
