import { config } from '../../config';
import {
  advanceNextEval,
  claimDedup,
  dueAlerts,
  getAlert,
  getAlerts,
  getThresholds,
  putEvaluation,
  putEvaluations,
} from '../../db/alerts-repo';
import { DUE_SHARDS } from '../../db/keys';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import { log } from '../../log';
import { enqueue } from '../../notify/queue';
import { dedupRule, localDay } from './dedup';
import type { AlertEvaluation, AlertThreshold, StoredAlert } from './model';
import { alertNotificationId, type Notification } from './notification';
import { type AlertFiring, renderAlertMessage } from './render';
import { daysBetween, lastCompletePeriod, nextEvaluationAt, previousPeriod } from './schedule';
import { seriesGroupKey } from './series-source';

/**
 * Scheduled evaluation: the sweep reads the due index (never a scan) and enqueues due alerts; the
 * evaluator reads the alert's daily series through `AlertSeriesSource` (wired to the query engine),
 * decides on the last complete day only, applies the noise floor, the snooze and the dedup rule,
 * records the evaluation and enqueues the rendered notification with an id derived from the alert
 * and the evaluated day.
 */

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

/**
 * One message of `alert-evaluation`: the due alerts of one organisation that ask the same queries
 * (the sweep groups them, at most `MAX_ALERTS_PER_MESSAGE`), evaluated with one read of the
 * series. `alertId` is the one-alert form (messages enqueued before grouping, manual redelivery).
 */
export interface EvaluationMessage {
  orgId: string;
  alertIds?: string[];
  alertId?: string;
  /** The due time the sweep enqueued it for (idempotency is by evaluated day, not by this). */
  scheduledFor: string;
}

/** Alerts per evaluation message: a group larger than this is split over several messages. */
export const MAX_ALERTS_PER_MESSAGE = 100;
/** Alerts of one message evaluated at once (their DynamoDB reads and writes overlap). */
const EVALUATION_CONCURRENCY = 8;

/** The alert ids a message names. */
export function messageAlertIds(msg: EvaluationMessage): string[] {
  return [...new Set([...(msg.alertIds ?? []), ...(msg.alertId ? [msg.alertId] : [])])];
}

export interface EvaluationResult {
  triggered: boolean;
  firing: AlertFiring;
  values: Record<string, number | null>;
}

const sumOver = (series: AlertSeries, name: string, p: { start: string; end: string }): number | null => {
  const vals = series.values[name];
  if (!vals) return null;
  let total = 0;
  let any = false;
  series.days.forEach((day, i) => {
    if (day >= p.start && day <= p.end && vals[i] !== null && vals[i] !== undefined) {
      total += vals[i]!;
      any = true;
    }
  });
  return any ? total : null;
};

/** Pure: decides whether an alert fires on the last complete period of `series`. */
export function decide(
  alert: StoredAlert,
  thresholds: readonly AlertThreshold[],
  series: AlertSeries,
  appUrl: string,
): EvaluationResult {
  const evaluatedDay = series.dataThrough;
  const idx = series.days.indexOf(evaluatedDay);
  const at = (vals: (number | null)[] | undefined) => (idx >= 0 && vals ? (vals[idx] ?? null) : null);
  const base = {
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
  if (alert.variant === 'CONDITION') {
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
  const out: { day: string; triggered: boolean; fired: boolean; result: EvaluationResult }[] = [];
  for (let i = Math.max(0, end - days + 1); i <= end; i++) {
    const day = series.days[i]!;
    const result = decide(alert, thresholds, { ...series, dataThrough: day }, '');
    out.push({
      day,
      triggered: result.triggered,
      fired: result.triggered && clearsFloor(alert, result),
      result,
    });
  }
  return out;
}

export interface EvaluateDeps {
  source: AlertSeriesSource;
  now: () => Date;
  enqueueNotification?: (n: Notification) => Promise<void>;
}

/**
 * Evaluates the alerts of one message (the evaluator worker's body): loads them (one BatchGet),
 * announces them to the source so those asking the same queries share one read, evaluates each
 * and records the evaluations (BatchWrite). Answers the evaluations in the message's order (null
 * for an alert skipped: unknown, archived, no complete day). If any alert fails, the others are
 * still evaluated and recorded and the first error is thrown, so the message is retried (a retry
 * re-evaluates all of them; the dedup claim and the notification id are per alert and day, so
 * nothing is sent twice).
 */
export async function evaluateAlerts(
  msg: EvaluationMessage,
  deps: EvaluateDeps,
): Promise<(AlertEvaluation | null)[]> {
  const ids = messageAlertIds(msg);
  const now = deps.now();
  // One BatchGet for the alerts; condition alerts have no thresholds, so only the others query them.
  const found = await getAlerts(msg.orgId, ids);
  const live = ids.flatMap((id) => {
    const alert = found.get(id);
    return alert && !alert.archivedAt ? [alert] : [];
  });
  deps.source.prepare?.(live, { now });
  const zone = once(() => getOrganizationTimezone(msg.orgId));
  const results = await pool(live, EVALUATION_CONCURRENCY, async (alert) => {
    const thresholds = alert.variant === 'CONDITION' ? [] : await getThresholds(msg.orgId, alert.id);
    return evaluateLoaded(alert, thresholds, { ...deps, now: () => now }, zone);
  });
  const evaluations = results.flatMap((r) => (r.ok && r.value ? [r.value] : []));
  await putEvaluations(msg.orgId, evaluations);
  for (const e of evaluations) logEvaluation(msg.orgId, e, now);
  const failed = results.find((r) => !r.ok);
  if (failed && !failed.ok) throw failed.error;
  const byId = new Map(evaluations.map((e) => [e.alertId, e]));
  return ids.map((id) => byId.get(id) ?? null);
}

/** `fn` called at most once (on first use), its promise shared. */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    p ??= fn();
    return p;
  };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `fn` over `items` with at most `limit` at once; every item settles. */
async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (x: T) => Promise<R>,
): Promise<Settled<R>[]> {
  const out: Settled<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = { ok: true, value: await fn(items[i]!) };
      } catch (error) {
        out[i] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Evaluates one alert and records the evaluation. Answers it, or null if skipped. */
export async function evaluateAlert(
  msg: { orgId: string; alertId: string; scheduledFor: string },
  deps: EvaluateDeps,
): Promise<AlertEvaluation | null> {
  const alert = await getAlert(msg.orgId, msg.alertId);
  if (!alert || alert.archivedAt) return null;
  const zone = once(() => getOrganizationTimezone(msg.orgId));
  const evaluation = await evaluateLoaded(alert, await getThresholds(msg.orgId, msg.alertId), deps, zone);
  if (evaluation) {
    await putEvaluation(alert.organizationId, evaluation);
    logEvaluation(alert.organizationId, evaluation, deps.now());
  }
  return evaluation;
}

function logEvaluation(orgId: string, e: AlertEvaluation, now: Date): void {
  log.info('alert evaluated', {
    orgId,
    alertId: e.alertId,
    evaluatedDay: e.evaluatedDay,
    triggered: e.triggered,
    suppressedBy: e.suppressedBy,
    lagDays: daysBetween(e.evaluatedDay, now.toISOString().slice(0, 10)),
  });
}

/** Decides, applies floor, snooze and dedup, enqueues the notification; the caller records the evaluation. */
async function evaluateLoaded(
  alert: StoredAlert,
  thresholds: AlertThreshold[],
  deps: EvaluateDeps,
  /** The organisation's timezone (read only when a CALENDAR dedup window needs it). */
  zone: () => Promise<string | undefined>,
): Promise<AlertEvaluation | null> {
  const now = deps.now();
  // The source reads what the alert needs (the 4-day window or the last two periods) ending on the
  // last complete day; the engine adds the condition's own lookback.
  const series = await deps.source.read(alert, { now });
  if (!series) {
    log.info('alert not evaluated: no complete day of billing data', {
      orgId: alert.organizationId,
      alertId: alert.id,
    });
    return null;
  }
  const result = decide(alert, thresholds, series, config().appBaseUrl);
  const evaluatedDay = series.dataThrough;
  const notificationId = alertNotificationId(alert.id, evaluatedDay);
  let suppressedBy: AlertEvaluation['suppressedBy'] = null;
  let notified: string | null = null;
  if (result.triggered) {
    if (!clearsFloor(alert, result)) suppressedBy = 'MIN_COST';
    else if (alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime()) suppressedBy = 'SNOOZE';
    else if (
      !(await claimDedup(
        alert.organizationId,
        alert.id,
        dedupRule(
          alert,
          evaluatedDay,
          alert.dedupKind === 'CALENDAR' ? localDay(now, await zone()) : evaluatedDay,
        ),
        evaluatedDay,
        notificationId,
        now,
      ))
    )
      suppressedBy = 'DEDUP';
    else {
      const n: Notification = {
        id: notificationId,
        orgId: alert.organizationId,
        kind: 'ALERT',
        alertId: alert.id,
        channel: alert.notificationChannel,
        emails: alert.emails,
        slackChannelId: alert.slackChannelId,
        teamsUrl: alert.teamsChannelId,
        message: renderAlertMessage(result.firing),
        createdAt: now.toISOString(),
      };
      await (deps.enqueueNotification ?? ((x: Notification) => enqueue('notifications', x)))(n);
      notified = notificationId;
    }
  }
  const evaluation: AlertEvaluation = {
    alertId: alert.id,
    evaluatedAt: now.toISOString(),
    evaluatedDay,
    values: result.values,
    triggered: result.triggered,
    suppressedBy,
    notificationId: notified,
  };
  return evaluation;
}

/**
 * The sweep: every shard of the due index up to `now`. Each due alert's `nextEvalAt` is moved on
 * first (a conditional write, so concurrent sweeps take each alert once), then a snoozed alert is
 * skipped and the others are grouped by what they read (`seriesGroupKey`: organisation, scope and
 * queries) into messages of at most `MAX_ALERTS_PER_MESSAGE` alerts, so one evaluator invocation
 * reads each distinct query set once. A failed enqueue moves its alerts' `nextEvalAt` back for the
 * next sweep. `enqueued` counts alerts, `messages` the messages sent.
 */
export async function sweepDueAlerts(
  now: Date,
  send: (m: EvaluationMessage) => Promise<void> = (m) => enqueue('alert-evaluation', m),
  only: (orgId: string) => boolean = () => true,
): Promise<{ enqueued: number; snoozed: number; messages: number }> {
  let enqueued = 0;
  let snoozed = 0;
  let messages = 0;
  const at = now.toISOString();
  const groups = new Map<
    string,
    { orgId: string; taken: { alertId: string; was: string; next: string }[] }
  >();
  const flush = async (key: string) => {
    const g = groups.get(key);
    if (!g?.taken.length) return;
    groups.delete(key);
    try {
      await send({ orgId: g.orgId, alertIds: g.taken.map((t) => t.alertId), scheduledFor: at });
      enqueued += g.taken.length;
      messages++;
    } catch (error) {
      for (const t of g.taken) await advanceNextEval(g.orgId, t.alertId, t.next, t.was).catch(() => false);
      throw error;
    }
  };
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await dueAlerts(shard, at, 100, cursor);
      cursor = page.next;
      for (const due of page.items.filter((d) => only(d.orgId))) {
        const alert = await getAlert(due.orgId, due.alertId);
        if (!alert || alert.archivedAt || alert.nextEvalAt !== due.nextEvalAt) continue;
        const next = nextEvaluationAt(alert.evaluationPeriod, now);
        if (!(await advanceNextEval(due.orgId, due.alertId, due.nextEvalAt, next))) continue;
        if (alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime()) {
          snoozed++;
          continue;
        }
        const key = seriesGroupKey(alert);
        let g = groups.get(key);
        if (!g) {
          g = { orgId: due.orgId, taken: [] };
          groups.set(key, g);
        }
        g.taken.push({ alertId: due.alertId, was: due.nextEvalAt, next });
        if (g.taken.length >= MAX_ALERTS_PER_MESSAGE) await flush(key);
      }
    } while (cursor);
  }
  for (const key of [...groups.keys()]) await flush(key);
  return { enqueued, snoozed, messages };
}
