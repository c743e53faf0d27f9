import { enqueueMany } from '../../cloud/queue';
import { config } from '../../config';
import {
  advanceNextEvals,
  claimDedup,
  dueAlerts,
  getAlerts,
  getThresholdsOf,
  putEvaluations,
} from '../../db/alerts-repo';
import { DUE_SHARDS } from '../../db/keys';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import { log } from '../../log';
import { mapSettled, type Settled } from '../../pool';
import { dedupRule, localDay } from './dedup';
import type { AlertEvaluation, AlertThreshold, StoredAlert } from './model';
import { alertNotificationId, type Notification } from './notification';
import { type AlertFiring, renderAlertMessage } from './render';
import { daysBetween, lastCompletePeriod, nextEvaluationAt, previousPeriod } from './schedule';
import type { AlertSeries, AlertSeriesSource } from './series';
import { seriesGroupKey } from './series-source';

/**
 * Scheduled evaluation: the sweep reads the due index (never a scan) and enqueues due alerts; the
 * evaluator reads the alert's daily series through `AlertSeriesSource` (wired to the query engine),
 * decides on the last complete day only, applies the noise floor, the snooze and the dedup rule,
 * records the evaluation and enqueues the rendered notification with an id derived from the alert
 * and the evaluated day.
 */

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
  /**
   * Enqueues rendered notifications (default: SendMessageBatch on `notifications`); answers, per
   * notification in order, null when it is on the queue or the error.
   */
  enqueueNotifications?: (ns: readonly Notification[]) => Promise<(Error | null)[]>;
  /** Milliseconds spent in each phase, added to (the bench reads them). */
  timings?: EvaluationTimings;
}

/** Wall time of each phase of `evaluateMessages`, in ms (the phases run one after the other). */
export interface EvaluationTimings {
  /** BatchGet of the alerts, thresholds of threshold variants (DynamoDB). */
  load: number;
  /** Series reads through the engine (the warehouse) and the in-memory decisions. */
  read: number;
  /** Conditional dedup claims of the alerts that fire (DynamoDB). */
  dedup: number;
  /** Rendering and SendMessageBatch of the notifications (SQS). */
  notify: number;
  /** BatchWrite of the evaluation history (DynamoDB). */
  record: number;
}

export const emptyTimings = (): EvaluationTimings => ({ load: 0, read: 0, dedup: 0, notify: 0, record: 0 });

/** DynamoDB calls of the evaluator in flight at once (threshold queries, dedup claims). */
const IO_CONCURRENCY = 16;

/** One alert as the evaluator carries it through the phases. */
interface Work {
  orgId: string;
  alertId: string;
  alert?: StoredAlert;
  thresholds: AlertThreshold[];
  result?: EvaluationResult;
  evaluatedDay?: string;
  suppressedBy: AlertEvaluation['suppressedBy'];
  notificationId: string | null;
  evaluation: AlertEvaluation | null;
  error?: unknown;
}

/**
 * Evaluates the alerts of several messages (one evaluator invocation) in phases, each batched:
 * 1. BatchGet the alerts (100 a call; each carries a copy of its thresholds);
 * 2. announce every alert to the source, which reads each distinct query set ONCE (all reads in
 *    flight together), and decide each alert in memory;
 * 3. for the alerts that fire and clear the noise floor and the snooze: the conditional dedup
 *    write (the only per-alert write);
 * 4. render and enqueue their notifications with SendMessageBatch (id: alert + evaluated day, so a
 *    redelivery never sends twice);
 * 5. record every evaluation with BatchWrite (25 a call, in parallel).
 * An alert named by several messages is evaluated once. Answers, per message, its evaluations in
 * its order (null for an alert skipped: unknown, archived, no complete day), or the first error of
 * its alerts: the others are still evaluated and recorded; a failed message is retried whole (the
 * dedup claim and the notification id are per alert and day, so nothing is sent twice).
 */
export async function evaluateMessages(
  msgs: readonly EvaluationMessage[],
  deps: EvaluateDeps,
): Promise<Settled<(AlertEvaluation | null)[]>[]> {
  const now = deps.now();
  const timings = deps.timings ?? emptyTimings();
  const phase = async <T>(name: keyof EvaluationTimings, fn: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      timings[name] += performance.now() - started;
    }
  };
  const work = new Map<string, Work>();
  const keyOf = (orgId: string, alertId: string) => `${orgId}\u0000${alertId}`;
  for (const msg of msgs)
    for (const alertId of messageAlertIds(msg))
      if (!work.has(keyOf(msg.orgId, alertId)))
        work.set(keyOf(msg.orgId, alertId), {
          orgId: msg.orgId,
          alertId,
          thresholds: [],
          suppressedBy: null,
          notificationId: null,
          evaluation: null,
        });
  const byOrg = new Map<string, Work[]>();
  for (const w of work.values()) {
    const list = byOrg.get(w.orgId);
    if (list) list.push(w);
    else byOrg.set(w.orgId, [w]);
  }
  const pending = () => [...work.values()].filter((w) => w.error === undefined);

  // 1. Load.
  await phase('load', () =>
    mapSettled([...byOrg], 4, async ([orgId, ws]) => {
      try {
        const found = await getAlerts(
          orgId,
          ws.map((w) => w.alertId),
        );
        for (const w of ws) {
          const alert = found.get(w.alertId);
          if (alert && !alert.archivedAt) w.alert = alert;
        }
        for (const w of ws) if (w.alert?.evalThresholds) w.thresholds = w.alert.evalThresholds;
        // Alerts stored before the `evalThresholds` copy existed: their thresholds are queried.
        const legacy = ws.filter(
          (w) => w.alert && w.alert.variant !== 'CONDITION' && !w.alert.evalThresholds,
        );
        const thresholds = await getThresholdsOf(
          orgId,
          legacy.map((w) => w.alertId),
          IO_CONCURRENCY,
        );
        for (const w of legacy) w.thresholds = thresholds.get(w.alertId) ?? [];
      } catch (error) {
        for (const w of ws) w.error = error;
      }
    }),
  );

  // 2. Read (one engine read per distinct query set) and decide.
  const live = pending().filter((w) => w.alert);
  await phase('read', async () => {
    deps.source.prepare?.(
      live.map((w) => w.alert!),
      { now },
    );
    const appUrl = config().consoleBaseUrl;
    await mapSettled(live, live.length, async (w) => {
      try {
        const series = await deps.source.read(w.alert!, { now });
        if (!series) {
          log.info('alert not evaluated: no complete day of billing data', {
            orgId: w.orgId,
            alertId: w.alertId,
          });
          return;
        }
        w.result = decide(w.alert!, w.thresholds, series, appUrl);
        w.evaluatedDay = series.dataThrough;
      } catch (error) {
        w.error = error;
      }
    });
  });

  // 3. Noise floor, snooze, then the dedup claim of the alerts that would notify.
  const zones = new Map<string, Promise<string | undefined>>();
  const zone = (orgId: string) => {
    let z = zones.get(orgId);
    if (!z) {
      z = getOrganizationTimezone(orgId);
      zones.set(orgId, z);
    }
    return z;
  };
  const decided = pending().filter((w) => w.result);
  const claims: Work[] = [];
  for (const w of decided) {
    if (!w.result!.triggered) continue;
    const alert = w.alert!;
    if (!clearsFloor(alert, w.result!)) w.suppressedBy = 'MIN_COST';
    else if (alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime()) w.suppressedBy = 'SNOOZE';
    else claims.push(w);
  }
  await phase('dedup', () =>
    mapSettled(claims, IO_CONCURRENCY, async (w) => {
      const alert = w.alert!;
      const day = w.evaluatedDay!;
      try {
        const local = alert.dedupKind === 'CALENDAR' ? localDay(now, await zone(w.orgId)) : day;
        const id = alertNotificationId(alert.id, day);
        if (await claimDedup(w.orgId, alert.id, dedupRule(alert, day, local), day, id, now))
          w.notificationId = id;
        else w.suppressedBy = 'DEDUP';
      } catch (error) {
        w.error = error;
      }
    }),
  );

  // 4. Notifications of the claimed alerts, batched.
  await phase('notify', async () => {
    const notifying: Work[] = [];
    const notes: Notification[] = [];
    for (const w of claims) {
      if (w.error !== undefined || !w.notificationId) continue;
      try {
        notes.push({
          id: w.notificationId,
          orgId: w.orgId,
          kind: 'ALERT',
          alertId: w.alertId,
          channel: w.alert!.notificationChannel,
          emails: w.alert!.emails,
          slackChannelId: w.alert!.slackChannelId,
          teamsUrl: w.alert!.teamsChannelId,
          message: renderAlertMessage(w.result!.firing),
          createdAt: now.toISOString(),
        });
        notifying.push(w);
      } catch (error) {
        w.error = error;
      }
    }
    let sent: (Error | null)[];
    try {
      sent = notes.length
        ? await (deps.enqueueNotifications ?? ((ns) => enqueueMany('notifications', ns)))(notes)
        : [];
    } catch (error) {
      sent = notes.map(() => (error instanceof Error ? error : new Error(String(error))));
    }
    notifying.forEach((w, i) => {
      if (sent[i]) w.error = sent[i];
    });
  });

  // 5. Record the evaluations (an alert that failed is not recorded: its message is retried).
  for (const w of decided)
    if (w.error === undefined)
      w.evaluation = {
        alertId: w.alertId,
        evaluatedAt: now.toISOString(),
        evaluatedDay: w.evaluatedDay!,
        values: w.result!.values,
        triggered: w.result!.triggered,
        suppressedBy: w.suppressedBy,
        notificationId: w.notificationId,
      };
  await phase('record', () =>
    mapSettled([...byOrg], 4, async ([orgId, ws]) => {
      const evaluations = ws.flatMap((w) => (w.evaluation ? [w.evaluation] : []));
      try {
        await putEvaluations(orgId, evaluations);
        for (const e of evaluations) logEvaluation(orgId, e, now);
      } catch (error) {
        for (const w of ws)
          if (w.evaluation) {
            w.evaluation = null;
            w.error = error;
          }
      }
    }),
  );

  return msgs.map((msg) => {
    const ws = messageAlertIds(msg).map((id) => work.get(keyOf(msg.orgId, id))!);
    const failed = ws.find((w) => w.error !== undefined);
    if (failed) return { ok: false, error: failed.error };
    return { ok: true, value: ws.map((w) => w.evaluation) };
  });
}

/** Evaluates the alerts of one message (`evaluateMessages` of that message); throws its first error. */
export async function evaluateAlerts(
  msg: EvaluationMessage,
  deps: EvaluateDeps,
): Promise<(AlertEvaluation | null)[]> {
  const [out] = await evaluateMessages([msg], deps);
  if (!out!.ok) throw out!.error;
  return out!.value;
}

/** Evaluates one alert and records the evaluation. Answers it, or null if skipped. */
export async function evaluateAlert(
  msg: { orgId: string; alertId: string; scheduledFor: string },
  deps: EvaluateDeps,
): Promise<AlertEvaluation | null> {
  const [evaluation] = await evaluateAlerts(msg, deps);
  return evaluation ?? null;
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

/** Due-index page size of the sweep: one transaction (at most 100 items) moves a page's alerts. */
const SWEEP_PAGE = 100;

/**
 * The sweep: every shard of the due index up to `now` (shards in parallel), page by page. The
 * index carries the whole alert records, so a page needs no further read. Each due alert's
 * `nextEvalAt` is moved on with a conditional write (a page's writes in one transaction,
 * `advanceNextEvals`), so of two concurrent sweeps exactly one takes an alert for a due slot, and
 * only the one that moved it enqueues it. A snoozed alert is moved on and skipped (conditional on the snooze it was read
 * with); the others are grouped by what they read (`seriesGroupKey`) into messages of at most
 * `MAX_ALERTS_PER_MESSAGE` alerts, sent with SendMessageBatch, so one evaluator invocation reads
 * each distinct query set once. A message SQS refuses moves its alerts' `nextEvalAt` back for the
 * next sweep and fails the sweep. `enqueued` counts alerts, `messages` the messages sent.
 */
export async function sweepDueAlerts(
  now: Date,
  send: (ms: readonly EvaluationMessage[]) => Promise<(Error | null)[]> = (ms) =>
    enqueueMany('alert-evaluation', ms),
  only: (orgId: string) => boolean = () => true,
): Promise<{ enqueued: number; snoozed: number; messages: number }> {
  let enqueued = 0;
  let snoozed = 0;
  let messages = 0;
  const at = now.toISOString();
  type Taken = { alertId: string; was: string; next: string };
  const groups = new Map<string, { orgId: string; taken: Taken[] }>();
  const full: { orgId: string; taken: Taken[] }[] = [];
  const flush = async (batch: { orgId: string; taken: Taken[] }[]) => {
    if (!batch.length) return;
    const results = await send(
      batch.map((g) => ({ orgId: g.orgId, alertIds: g.taken.map((t) => t.alertId), scheduledFor: at })),
    );
    let firstError: Error | null = null;
    await mapSettled(batch, 1, async (g, i) => {
      const error = results[i];
      if (!error) {
        enqueued += g.taken.length;
        messages++;
        return;
      }
      firstError ??= error;
      // Back for the next sweep (conditional on still being where this sweep put them).
      for (let k = 0; k < g.taken.length; k += SWEEP_PAGE)
        await advanceNextEvals(
          g.taken
            .slice(k, k + SWEEP_PAGE)
            .map((t) => ({ orgId: g.orgId, alertId: t.alertId, from: t.next, to: t.was })),
        ).catch(() => undefined);
    });
    if (firstError) throw firstError;
  };
  const sweepShard = async (shard: number) => {
    // The next page is read while this one's transaction runs (moved alerts leave the range read).
    let reading: ReturnType<typeof dueAlerts> | undefined = dueAlerts(shard, at, SWEEP_PAGE);
    while (reading) {
      const page: Awaited<ReturnType<typeof dueAlerts>> = await reading;
      reading = page.next ? dueAlerts(shard, at, SWEEP_PAGE, page.next) : undefined;
      reading?.catch(() => undefined); // awaited on the next turn
      const due = page.items.filter((a) => only(a.organizationId) && !a.archivedAt && a.nextEvalAt);
      // One transaction moves the page's alerts (each conditional on what was read).
      const plans = due.map((alert) => ({
        alert,
        next: nextEvaluationAt(alert.evaluationPeriod, now),
        isSnoozed: !!alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime(),
      }));
      const moved = await advanceNextEvals(
        plans.map((p) => ({
          orgId: p.alert.organizationId,
          alertId: p.alert.id,
          from: p.alert.nextEvalAt!,
          to: p.next,
          ...(p.isSnoozed ? { snoozedUntil: p.alert.snoozedUntil! } : {}),
        })),
      );
      plans.forEach(({ alert, next, isSnoozed }, i) => {
        if (!moved[i]) return;
        if (isSnoozed) {
          snoozed++;
          return;
        }
        const key = seriesGroupKey(alert);
        let g = groups.get(key);
        if (!g) {
          g = { orgId: alert.organizationId, taken: [] };
          groups.set(key, g);
        }
        g.taken.push({ alertId: alert.id, was: alert.nextEvalAt!, next });
        if (g.taken.length >= MAX_ALERTS_PER_MESSAGE) {
          groups.delete(key);
          full.push(g);
        }
      });
      // Full messages go out as they fill (10 a call), so a large sweep sends while it reads.
      if (full.length >= 10) await flush(full.splice(0));
    }
  };
  const shards = await mapSettled(
    Array.from({ length: DUE_SHARDS }, (_, i) => i),
    DUE_SHARDS,
    sweepShard,
  );
  await flush([...full.splice(0), ...groups.values()]);
  const failed = shards.find((s) => !s.ok);
  if (failed && !failed.ok) throw failed.error;
  return { enqueued, snoozed, messages };
}
