import { createHash } from 'node:crypto';
import { enqueueMany } from '../../../cloud/queue';
import { config } from '../../../config';
import {
  claimFired,
  type FiredClaim,
  getBudgetAlert,
  markFiredEnqueued,
  putBudgetAlertEvaluation,
} from '../../../db/budget-alerts-repo';
import { getBudget } from '../../../db/budgets-repo';
import { getOrganizationTimezone } from '../../../db/organizations-repo';
import { log } from '../../../log';
import type { RootCauses } from '../../../model/alerts';
import {
  type BudgetAlertEvaluation,
  type BudgetAlertThreshold,
  type BudgetThresholdCheck,
  EACH_LINE,
  type StoredBudgetAlert,
} from '../../../model/budget-alerts';
import type { Budget } from '../../../model/budgets';
import { mapSettled } from '../../../pool';
import { QUEUE } from '../../../queues';
import { localDay } from '../../alerts/dedup';
import { alertAddress, type Notification } from '../../alerts/notification';
import { burnSeries, monthDays, type StatusDetail, type StatusFigures, statusOf } from '../status';
import { budgetAlertMessage } from './burn-chart';
import { type BudgetFiring, budgetLink } from './render';
import { budgetRootCauses, type LineMonth, topContributors } from './top';

/**
 * Scheduled evaluation of budget alerts, by the cost alerts' sweep and evaluator (docs/budgets.md
 * "Budget alerts"): the sweep takes due alerts off their own due index (daily, 06:00 UTC, after the
 * billing data's cut-off) and enqueues them on `alert-evaluation` as `kind: 'budget'` messages;
 * the evaluator computes the budget's status for the month of the last complete day, checks each
 * threshold of each line it watches, and sends a notification for a crossed threshold only when
 * its conditional `FIRED` claim (month, line, threshold) is new: once per month, line and
 * threshold, whatever the sweeps and redeliveries. A snoozed alert is evaluated and recorded but
 * claims and sends nothing (a threshold still crossed fires once the snooze has ended); an archived
 * one is not evaluated.
 */
export interface BudgetEvaluationMessage {
  kind: 'budget';
  orgId: string;
  budgetAlertIds: string[];
  scheduledFor: string;
}

/** Budget alerts per evaluation message. */
export const MAX_BUDGET_ALERTS_PER_MESSAGE = 25;

export function isBudgetEvaluationMessage(m: unknown): m is BudgetEvaluationMessage {
  const x = m as Partial<BudgetEvaluationMessage> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    x.kind === 'budget' &&
    typeof x.orgId === 'string' &&
    typeof x.scheduledFor === 'string' &&
    Array.isArray(x.budgetAlertIds) &&
    x.budgetAlertIds.length > 0 &&
    x.budgetAlertIds.every((id) => typeof id === 'string')
  );
}

export interface BudgetEvaluateDeps {
  now: () => Date;
  enqueueNotifications?: (ns: readonly Notification[]) => Promise<(Error | null)[]>;
}

/** What a threshold means in the budget's currency for a line: a percentage of its budget made an amount. */
export function thresholdAmount(
  t: Pick<BudgetAlertThreshold, 'value' | 'metricMode'>,
  budget: number,
): number | null {
  if (t.metricMode === 'ABSOLUTE_SPEND') return t.value;
  // A percentage of a line without budget this month means nothing: never crossed.
  return budget > 0 ? (t.value / 100) * budget : null;
}

/** The figure a threshold compares: the actual to date, or the month-end forecast. */
export function measuredFor(t: Pick<BudgetAlertThreshold, 'basis'>, f: StatusFigures): number | null {
  return t.basis === 'ACTUAL' ? f.actual : (f.forecast?.value ?? null);
}

/**
 * The threshold's identity in its `FIRED` key: what it compares, not its id, so a PUT of the alert
 * that keeps a threshold keeps it fired, and a budget version that changes the line's amount (so a
 * percentage's amount) re-arms it while one that does not leaves it fired.
 */
export function thresholdKey(
  t: Pick<BudgetAlertThreshold, 'basis' | 'metricMode' | 'value'>,
  amount: number,
): string {
  return `${t.basis}.${t.metricMode}.${t.value}.${amount.toFixed(2)}`;
}

/**
 * The lines an alert watches, with their figures, from a status: the total (`line` null), one line,
 * or each of the budget's lines (`*`; the `Other` line has no budget and is not watched).
 */
export function watchedLines(
  alert: Pick<StoredBudgetAlert, 'line'>,
  budget: Pick<Budget, 'groupBy'>,
  detail: StatusDetail,
): { line: string | null; owner: string | null; figures: StatusFigures; daily: Map<string, number> }[] {
  const { status } = detail;
  if (alert.line === null) {
    const owner = budget.groupBy === null ? (status.lines[0]?.owner ?? null) : null;
    return [{ line: null, owner, figures: status.total, daily: detail.totalDaily }];
  }
  const own = budget.groupBy === null ? status.lines : status.lines.slice(0, -1);
  return own
    .filter((l) => alert.line === EACH_LINE || l.value === alert.line)
    .map(({ value, owner, ...figures }) => ({
      line: value,
      owner,
      figures,
      daily: detail.daily.get(value) ?? new Map<string, number>(),
    }));
}

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** The notification id of a threshold's firing: one per alert, month, line and threshold. */
export function firedNotificationId(alertId: string, claim: Omit<FiredClaim, 'notificationId'>): string {
  return `${alertId}:${claim.month}:${hash(`${claim.line ?? '\u0000'}#${claim.threshold}`)}`;
}

/** The month an evaluation looks at: the current one in the organisation's zone, or the one of the last complete day. */
function monthToEvaluate(now: Date, timeZone: string | undefined): string {
  return localDay(now, timeZone).slice(0, 7);
}

/** `make`, called once per key (its first answer, a promise included, is kept for the others). */
function oncePer<A extends unknown[], T>(key: (...a: A) => string, make: (...a: A) => T): (...a: A) => T {
  const made = new Map<string, T>();
  return (...a: A) => {
    const k = key(...a);
    if (!made.has(k)) made.set(k, make(...a));
    return made.get(k) as T;
  };
}

/** Evaluates the budget alerts of one message; throws the first error (the message is retried whole). */
export async function evaluateBudgetAlerts(
  msg: BudgetEvaluationMessage,
  deps: BudgetEvaluateDeps,
): Promise<(BudgetAlertEvaluation | null)[]> {
  const now = deps.now();
  const timeZone = await getOrganizationTimezone(msg.orgId);
  const statusFor = oncePer(
    (budgetId: string) => budgetId,
    async (budgetId: string): Promise<{ budget: Budget; detail: StatusDetail } | null> => {
      const budget = await getBudget(msg.orgId, budgetId);
      if (!budget || budget.archivedAt) return null;
      let detail = await statusOf(budget, monthToEvaluate(now, timeZone), timeZone, now);
      const through = detail.status.dataThrough;
      // Early in a month the last complete day may still be in the previous one: that month is evaluated.
      if (through && through < monthDays(detail.status.month).first)
        detail = await statusOf(budget, through.slice(0, 7), timeZone, now);
      return { budget, detail };
    },
  );
  // The top contributors and the root causes of a budget's line and month, each read once per
  // message (alerts on the same line share them).
  const lineKey = ({ budget, line, month, dataThrough }: LineMonth) =>
    JSON.stringify([budget.id, budget.versionId, line, month, dataThrough]);
  const topFor: TopOf = oncePer(lineKey, (at) => topContributors(at, timeZone, now));
  const causesFor: CausesOf = oncePer(lineKey, (at) => budgetRootCauses(at, timeZone, now));
  const results = await mapSettled([...new Set(msg.budgetAlertIds)], 4, async (alertId) => {
    const alert = await getBudgetAlert(msg.orgId, alertId);
    if (!alert || alert.archivedAt) return null;
    const loaded = await statusFor(alert.budgetId);
    if (!loaded?.detail.status.dataThrough) {
      log.info('budget alert not evaluated: no budget or no billing data', { orgId: msg.orgId, alertId });
      return null;
    }
    return evaluateOne(alert, loaded.budget, loaded.detail, now, deps, { topFor, causesFor });
  });
  const failed = results.find((r) => !r.ok);
  if (failed && !failed.ok) throw failed.error;
  return results.map((r) => (r.ok ? r.value : null));
}

type TopOf = (at: LineMonth) => ReturnType<typeof topContributors>;
type CausesOf = (at: LineMonth) => Promise<RootCauses>;

async function evaluateOne(
  alert: StoredBudgetAlert,
  budget: Budget,
  detail: StatusDetail,
  now: Date,
  deps: BudgetEvaluateDeps,
  reads: { topFor: TopOf; causesFor: CausesOf },
): Promise<BudgetAlertEvaluation> {
  const { topFor, causesFor } = reads;
  const { status } = detail;
  const month = status.month;
  const dataThrough = status.dataThrough!;
  const snoozed = !!alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime();
  const checks: BudgetThresholdCheck[] = [];
  const notes: { note: Notification; claim: FiredClaim }[] = [];
  const appUrl = config().consoleBaseUrl;
  for (const watched of watchedLines(alert, budget, detail)) {
    for (const t of alert.thresholds) {
      const amount = thresholdAmount(t, watched.figures.budget);
      const measured = measuredFor(t, watched.figures);
      const crossed = amount !== null && measured !== null && measured >= amount;
      const check: BudgetThresholdCheck = {
        thresholdId: t.id,
        line: watched.line,
        basis: t.basis,
        amount: amount ?? 0,
        measured,
        crossed,
        notificationId: null,
        suppressedBy: null,
      };
      checks.push(check);
      if (!crossed) continue;
      if (snoozed) {
        check.suppressedBy = 'SNOOZE';
        continue;
      }
      const base = { month, line: watched.line, threshold: thresholdKey(t, amount) };
      const claim: FiredClaim = { ...base, notificationId: firedNotificationId(alert.id, base) };
      const { claimed, pending } = await claimFired(alert.organizationId, alert.id, claim, now);
      if (!claimed && !pending) {
        check.suppressedBy = 'FIRED';
        continue;
      }
      check.notificationId = claim.notificationId;
      const rootCauses = await causesFor({ budget, line: watched.line, month, dataThrough });
      check.rootCauses = rootCauses;
      const firing: BudgetFiring = {
        alert: { id: alert.id, name: alert.name },
        budget: { id: budget.id, name: budget.name, currency: budget.currency, groupBy: budget.groupBy },
        link: budgetLink(appUrl, budget, watched.line, month),
        line: watched.line,
        owner: watched.owner,
        month,
        dataThrough,
        figures: watched.figures,
        threshold: { ...t, amount },
        measured: measured!,
        top: await topFor({ budget, line: watched.line, month, dataThrough }),
        rootCauses,
        conversion: status.conversion,
        burn: burnSeries(watched.daily, month, dataThrough, watched.figures),
        appUrl,
      };
      notes.push({
        claim,
        note: {
          id: claim.notificationId,
          ...alertAddress(alert),
          message: await budgetAlertMessage(firing),
          createdAt: now.toISOString(),
        },
      });
    }
  }
  if (notes.length) {
    const sent = await (deps.enqueueNotifications ?? ((ns) => enqueueMany(QUEUE.notifications, ns)))(
      notes.map((n) => n.note),
    );
    const error = sent.find((e) => e);
    // The claims stay unconfirmed: the retried message enqueues them again under the same ids.
    if (error) throw error;
    for (const n of notes) await markFiredEnqueued(alert.organizationId, alert.id, n.claim);
  }
  const evaluation: BudgetAlertEvaluation = {
    alertId: alert.id,
    evaluatedAt: now.toISOString(),
    budgetVersionId: budget.versionId,
    month,
    dataThrough,
    checks,
    triggered: checks.some((c) => c.crossed),
    rootCauses: checks.find((c) => c.rootCauses)?.rootCauses ?? null,
  };
  await putBudgetAlertEvaluation(alert.organizationId, evaluation);
  log.info('budget alert evaluated', {
    orgId: alert.organizationId,
    alertId: alert.id,
    month,
    dataThrough,
    crossed: checks.filter((c) => c.crossed).length,
    notified: notes.length,
  });
  return evaluation;
}
