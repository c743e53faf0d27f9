import type { Principal } from '../../auth/principal';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import { dedupAllows, dedupRule, localDay } from './dedup';
import { replay } from './rule';
import { alertFields } from './rules';
import { daysBetween, lastCompletePeriod } from './schedule';
import type { CreateAlertInput } from './schemas';
import type { AlertSeriesSource } from './series';
import { createEngineSeriesSource } from './series-source';
import { assertAlertReferences, newAlert, webhookPolicy } from './service';

/** Days a backtest replays, ending on the last complete day. */
export const BACKTEST_DAYS = 90;

export interface BacktestResult {
  /** The last complete day of billing data (null: no recent data, nothing replayed). */
  dataThrough: string | null;
  from: string | null;
  days: number;
  /** Days the rule held and the value cleared `minCost`, with the evaluated values. */
  fired: { day: string; values: Record<string, number | null> }[];
  /** Days a notification would have gone out after dedup (snooze is ignored). */
  notifications: string[];
  notificationCount: number;
}

/**
 * Replays an alert body (the create body, validated the same way, nothing stored) over the last 90
 * complete days: on which days it would have fired, and which of those dedup would have let
 * through, applying the alert's dedup rule day by day as the evaluator's conditional write does
 * (a day's CALENDAR window is that of its evaluation, with today's lag, in the org's timezone).
 */
export async function backtestAlert(
  principal: Principal,
  input: CreateAlertInput,
  now: Date = new Date(),
  source: AlertSeriesSource = createEngineSeriesSource(),
): Promise<BacktestResult> {
  const fields = alertFields(input, webhookPolicy());
  await assertAlertReferences(principal, fields);
  // Built as a create would build it, but never stored and never due.
  const { alert, thresholds } = newAlert(principal, fields, now.toISOString(), null);
  const series = await source.read(alert, { now, days: BACKTEST_DAYS });
  if (!series)
    return { dataThrough: null, from: null, days: 0, fired: [], notifications: [], notificationCount: 0 };
  const days = replay(alert, thresholds, series, BACKTEST_DAYS);
  // A WEEKLY or MONTHLY threshold alert judges each period once: count it on the period's last
  // day (the first day it is the last complete period), not on each of the days that repeat it.
  const judged = (day: string) =>
    alert.variant === 'CONDITION' ||
    alert.evaluationPeriod === 'DAILY' ||
    lastCompletePeriod(alert.evaluationPeriod, day).end === day;
  const fired = days
    .filter((d) => d.fired && judged(d.day))
    .map((d) => ({ day: d.day, values: d.result.values }));
  const notifications: string[] = [];
  let state: { windowKey?: string; lastNotifiedDay?: string } | undefined;
  // Each day is taken as evaluated with today's lag: at `now` minus the days between it and
  // `dataThrough`, read in the organisation's timezone for CALENDAR windows.
  const zone = alert.dedupKind === 'CALENDAR' ? await getOrganizationTimezone(principal.orgId) : undefined;
  const sentOn = (day: string) =>
    localDay(new Date(now.getTime() - daysBetween(day, series.dataThrough) * 86_400_000), zone);
  for (const { day } of fired) {
    const rule = dedupRule(alert, day, sentOn(day));
    if (!dedupAllows(rule, state)) continue;
    notifications.push(day);
    state =
      rule.kind === 'WINDOW' ? { windowKey: rule.windowKey, lastNotifiedDay: day } : { lastNotifiedDay: day };
  }
  return {
    dataThrough: series.dataThrough,
    from: days[0]?.day ?? null,
    days: days.length,
    fired,
    notifications,
    notificationCount: notifications.length,
  };
}
