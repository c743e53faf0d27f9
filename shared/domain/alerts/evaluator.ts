import { config } from '../../config';
import { log } from '../../log';
import type { AlertEvaluation, AlertThreshold, AlertVariant, StoredAlert } from '../../model/alerts';
import { mapSettled, type Settled } from '../../pool';
import { alertChartOf, alertMessage, CHART_DAYS } from './chart';
import { dedupRule, localDay } from './dedup';
import { alertAddress, alertNotificationId, type Notification } from './notification';
import type { Enqueue, EvaluationStore, RootCauseSource } from './ports';
import { clearsFloor, decide, type EvaluationResult } from './rule';
import { daysBetween } from './schedule';
import type { AlertSeries, AlertSeriesSource } from './series';

/**
 * The batch evaluator: reads each alert's daily series through `AlertSeriesSource` (wired to the
 * query engine), decides on the last complete day only (`rule.ts`), applies the noise floor, the
 * snooze and the dedup rule, records the evaluation and enqueues the rendered notification with an
 * id derived from the alert and the evaluated day. Storage and queues are ports (`ports.ts`), passed
 * in by the worker (`functions/workers/alert-evaluate.ts`, adapters from `adapters/evaluate.ts`).
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

export interface EvaluateDeps {
  source: AlertSeriesSource;
  store: EvaluationStore;
  /** Enqueues rendered notifications on `notifications`. */
  enqueueNotifications: Enqueue<Notification>;
  /** The root causes of a firing, shown in its message; without it messages carry none. */
  rootCauses?: RootCauseSource;
  /**
   * Evaluators of the alert kinds that read no series (by `variant`): each decides, dedups and
   * notifies on its own and answers the evaluation to record (`COMMITMENT_EXPIRY`,
   * docs/commitments.md). An alert of a kind with no evaluator here fails its message.
   */
  kinds?: Partial<Record<AlertVariant, (alert: StoredAlert, now: Date) => Promise<AlertEvaluation>>>;
  now: () => Date;
}

/** DynamoDB calls of the evaluator in flight at once (threshold queries, dedup claims). */
const IO_CONCURRENCY = 16;

/** An alert found, live, with its thresholds: what the read phase needs. */
interface Loaded {
  alert: StoredAlert;
  thresholds: AlertThreshold[];
}

/** An alert decided on its last complete day. */
interface Decided extends Loaded {
  result: EvaluationResult;
  evaluatedDay: string;
  /** The series read (the message's chart draws it). */
  series: AlertSeries;
}

/** One alert as the evaluator carries it through the phases; each phase fills its own field. */
interface Work {
  orgId: string;
  alertId: string;
  loaded?: Loaded;
  decided?: Decided;
  suppressedBy: AlertEvaluation['suppressedBy'];
  notificationId: string | null;
  evaluation: AlertEvaluation | null;
  error?: unknown;
}

interface Batch {
  now: Date;
  deps: EvaluateDeps;
  work: Map<string, Work>;
  byOrg: Map<string, Work[]>;
}

const keyOf = (orgId: string, alertId: string) => `${orgId}\u0000${alertId}`;
const ok = (w: Work) => w.error === undefined;

function batchOf(msgs: readonly EvaluationMessage[], deps: EvaluateDeps): Batch {
  const work = new Map<string, Work>();
  for (const msg of msgs)
    for (const alertId of messageAlertIds(msg))
      if (!work.has(keyOf(msg.orgId, alertId)))
        work.set(keyOf(msg.orgId, alertId), {
          orgId: msg.orgId,
          alertId,
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
  return { now: deps.now(), deps, work, byOrg };
}

/** Phase 1: BatchGet the alerts (each carries a copy of its thresholds; older ones are queried). */
async function load({ deps, byOrg }: Batch): Promise<void> {
  await mapSettled([...byOrg], 4, async ([orgId, ws]) => {
    try {
      const found = await deps.store.getAlerts(
        orgId,
        ws.map((w) => w.alertId),
      );
      const legacy: Work[] = [];
      for (const w of ws) {
        const alert = found.get(w.alertId);
        if (!alert || alert.archivedAt) continue;
        w.loaded = { alert, thresholds: alert.evalThresholds ?? [] };
        if (alert.variant !== 'CONDITION' && !alert.evalThresholds) legacy.push(w);
      }
      // Alerts stored before the `evalThresholds` copy existed: their thresholds are queried.
      const thresholds = await deps.store.getThresholdsOf(
        orgId,
        legacy.map((w) => w.alertId),
        IO_CONCURRENCY,
      );
      for (const w of legacy) if (w.loaded) w.loaded.thresholds = thresholds.get(w.alertId) ?? [];
    } catch (error) {
      for (const w of ws) w.error = error;
    }
  });
}

/** Phase 2: one engine read per distinct query set (all in flight), then each decision in memory. */
async function readAndDecide({ now, deps, work }: Batch): Promise<void> {
  const live = [...work.values()].filter((w) => ok(w) && w.loaded && !isKind(w.loaded.alert));
  // `CHART_DAYS`: the message's chart shows the days before the evaluated one.
  const opts = { now, days: CHART_DAYS };
  deps.source.prepare?.(
    live.flatMap((w) => (w.loaded ? [w.loaded.alert] : [])),
    opts,
  );
  const appUrl = config().consoleBaseUrl;
  await mapSettled(live, live.length, async (w) => {
    const loaded = w.loaded;
    if (!loaded) return;
    try {
      const series = await deps.source.read(loaded.alert, opts);
      if (!series) {
        log.info('alert not evaluated: no complete day of billing data', {
          orgId: w.orgId,
          alertId: w.alertId,
        });
        return;
      }
      const result = decide(loaded.alert, loaded.thresholds, series, appUrl);
      w.decided = { ...loaded, result, evaluatedDay: series.dataThrough, series };
    } catch (error) {
      w.error = error;
    }
  });
}

/** Alerts of the kinds that read no series (`EvaluateDeps.kinds`). */
const KINDS: readonly AlertVariant[] = ['COMMITMENT_EXPIRY'];
const isKind = (alert: StoredAlert) => KINDS.includes(alert.variant);

/** Phase 2 (kinds): each alert of a series-less kind through its own evaluator. */
async function evaluateKinds({ now, deps, work }: Batch): Promise<void> {
  const kinds = [...work.values()].filter((w) => ok(w) && w.loaded && isKind(w.loaded.alert));
  await mapSettled(kinds, IO_CONCURRENCY, async (w) => {
    const alert = w.loaded!.alert;
    try {
      const evaluate = deps.kinds?.[alert.variant];
      if (!evaluate) throw new Error(`no evaluator for alerts of kind ${alert.variant}`);
      w.evaluation = await evaluate(alert, now);
    } catch (error) {
      w.error = error;
    }
  });
}

/** An alert that fires: a candidate for the dedup claim and the notification. */
type Claim = Work & { decided: Decided };
const isDecided = (w: Work): w is Claim => w.decided !== undefined;

/** Phase 3: noise floor and snooze; answers the alerts that would notify (the dedup claim's candidates). */
function suppress({ now, work }: Batch): Claim[] {
  const claims: Claim[] = [];
  for (const w of work.values()) {
    if (!ok(w) || !isDecided(w) || !w.decided.result.triggered) continue;
    const { alert, result } = w.decided;
    if (!clearsFloor(alert, result)) w.suppressedBy = 'MIN_COST';
    else if (alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime()) w.suppressedBy = 'SNOOZE';
    else claims.push(w);
  }
  return claims;
}

/** Phase 3 (cont.): the conditional dedup write of each alert that would notify. */
async function claimDedups({ now, deps }: Batch, claims: readonly Claim[]) {
  const zones = new Map<string, Promise<string | undefined>>();
  const zone = (orgId: string) => {
    let z = zones.get(orgId);
    if (!z) {
      z = deps.store.organizationTimezone(orgId);
      zones.set(orgId, z);
    }
    return z;
  };
  await mapSettled(claims, IO_CONCURRENCY, async (w) => {
    const { alert, evaluatedDay: day } = w.decided;
    try {
      const local = alert.dedupKind === 'CALENDAR' ? localDay(now, await zone(w.orgId)) : day;
      const id = alertNotificationId(alert.id, day);
      if (await deps.store.claimDedup(w.orgId, alert.id, dedupRule(alert, day, local), day, id, now))
        w.notificationId = id;
      else w.suppressedBy = 'DEDUP';
    } catch (error) {
      w.error = error;
    }
  });
}

/** Phase 4a: the root causes of each firing that notifies (its message shows them). */
async function explainFirings({ now, deps }: Batch, notifying: readonly Claim[]) {
  const source = deps.rootCauses;
  if (!source) return;
  await mapSettled(notifying, IO_CONCURRENCY, async (w) => {
    const { alert, result } = w.decided;
    try {
      const causes = await source.explain(alert, result.firing.period, now);
      if (causes) result.firing.rootCauses = causes;
    } catch (error) {
      // The message still goes out, without its root causes: the firing is what matters.
      log.warn('alert root causes not computed', { orgId: w.orgId, alertId: w.alertId, error });
    }
  });
}

/** Phase 4b: render the notifications of the claimed alerts (with their charts) and enqueue them, batched. */
async function notify(batch: Batch, claims: readonly Claim[]): Promise<void> {
  const { now, deps } = batch;
  const claimed = claims.filter((w) => ok(w) && w.notificationId);
  await explainFirings(batch, claimed);
  const notifying: Work[] = [];
  const notes: Notification[] = [];
  for (const w of claimed) {
    const { alert, result, series } = w.decided;
    try {
      const chart = alertChartOf(result.firing, series);
      if (chart) result.firing.chart = chart;
      notes.push({
        id: w.notificationId as string,
        ...alertAddress(alert),
        message: await alertMessage(result.firing),
        createdAt: now.toISOString(),
      });
      notifying.push(w);
    } catch (error) {
      w.error = error;
    }
  }
  let sent: (Error | null)[];
  try {
    sent = notes.length ? await deps.enqueueNotifications(notes) : [];
  } catch (error) {
    sent = notes.map(() => (error instanceof Error ? error : new Error(String(error))));
  }
  notifying.forEach((w, i) => {
    if (sent[i]) w.error = sent[i];
  });
}

/** Phase 5: record every evaluation (an alert that failed is not recorded: its message is retried). */
async function record({ now, deps, work, byOrg }: Batch): Promise<void> {
  for (const w of work.values())
    if (ok(w) && w.decided)
      w.evaluation = {
        alertId: w.alertId,
        evaluatedAt: now.toISOString(),
        evaluatedDay: w.decided.evaluatedDay,
        values: w.decided.result.values,
        triggered: w.decided.result.triggered,
        suppressedBy: w.suppressedBy,
        notificationId: w.notificationId,
        // Computed for the firings that notify only (`explainFirings`), as their messages show them.
        rootCauses: (w.notificationId && w.decided.result.firing.rootCauses) || null,
      };
  await mapSettled([...byOrg], 4, async ([orgId, ws]) => {
    const evaluations = ws.flatMap((w) => (w.evaluation ? [w.evaluation] : []));
    try {
      await deps.store.putEvaluations(orgId, evaluations);
      for (const e of evaluations) logEvaluation(orgId, e, now);
    } catch (error) {
      for (const w of ws)
        if (w.evaluation) {
          w.evaluation = null;
          w.error = error;
        }
    }
  });
}

/**
 * Evaluates the alerts of several messages (one evaluator invocation) in phases, each batched:
 * 1. `load`: BatchGet the alerts (100 a call; each carries a copy of its thresholds);
 * 2. `readAndDecide`: announce every alert to the source, which reads each distinct query set ONCE
 *    (all reads in flight together), and decide each alert in memory;
 * 3. `suppress` + `claimDedups`: for the alerts that fire and clear the noise floor and the snooze,
 *    the conditional dedup write (the only per-alert write);
 * 4. `notify`: their root causes, then render and enqueue their notifications with SendMessageBatch
 *    (id: alert + evaluated day, so a redelivery never sends twice);
 * 5. `record`: every evaluation with BatchWrite (25 a call, in parallel).
 * An alert named by several messages is evaluated once. Answers, per message, its evaluations in
 * its order (null for an alert skipped: unknown, archived, no complete day), or the first error of
 * its alerts: the others are still evaluated and recorded; a failed message is retried whole (the
 * dedup claim and the notification id are per alert and day, so nothing is sent twice).
 */
export async function evaluateMessages(
  msgs: readonly EvaluationMessage[],
  deps: EvaluateDeps,
): Promise<Settled<(AlertEvaluation | null)[]>[]> {
  const batch = batchOf(msgs, deps);
  await load(batch);
  await Promise.all([readAndDecide(batch), evaluateKinds(batch)]);
  const claims = suppress(batch);
  await claimDedups(batch, claims);
  await notify(batch, claims);
  await record(batch);
  return msgs.map((msg) => {
    const ws = messageAlertIds(msg).flatMap((id) => batch.work.get(keyOf(msg.orgId, id)) ?? []);
    const failed = ws.find((w) => !ok(w));
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
  if (!out) return [];
  if (!out.ok) throw out.error;
  return out.value;
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
