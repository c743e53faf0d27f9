import * as v from 'valibot';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import {
  advanceNextRun,
  claimDelivery,
  finishDelivery,
  getReport,
  listDueReports,
  markDeliveryStep,
  scanReportsWithoutNextRun,
  setFirstNextRun,
} from '../../db/reports-repo';
import { log } from '../../log';
import type { Report, ReportDelivery } from '../../model/reports';
import { renderAttachments } from './render/attachments';
import { formatReport, type RenderedReport } from './render/format';
import type { WidgetData } from './render/widget-data';
import { renderWidget } from './render/widgets';
import { isDeliverable, nextRunAfter } from './schedule';
import { validZone } from './time-zone';

/** The `report-delivery` message: with the report, `runAt` is the run's idempotency key. */
export const DeliveryMessage = v.strictObject({
  type: v.literal('report-delivery'),
  orgId: v.pipe(v.string(), v.minLength(1)),
  reportId: v.pipe(v.string(), v.minLength(1)),
  runAt: v.pipe(v.string(), v.isoTimestamp()),
  trigger: v.picklist(['SCHEDULE', 'MANUAL']),
});
export type DeliveryMessage = v.InferOutput<typeof DeliveryMessage>;

/**
 * The steps of one destination an earlier attempt completed, and a way to record one: a sender with
 * several visible steps (Slack: the message, then the files) skips those already done on a retry.
 */
export interface DeliverySteps {
  done: ReadonlySet<string>;
  /**
   * What a done step left for the later ones, by step (Slack's `message`: the message's `ts`, the
   * thread its files go into). Absent for a step done before references were kept.
   */
  refs?: ReadonlyMap<string, string>;
  /** Records `step` as done, with what it leaves for the later steps (`ref`) if anything. */
  mark(step: string, ref?: string): Promise<void>;
}

/**
 * The senders the worker injects (SES raw email, Slack chat.postMessage and file upload): the domain
 * stays SDK-free. Each gets the whole rendered report, its attachments (if any) included.
 */
export interface Senders {
  email(to: string, message: RenderedReport, headers: Record<string, string>): Promise<void>;
  slack(channel: string, message: RenderedReport, steps: DeliverySteps): Promise<void>;
}

export type Enqueue = (message: DeliveryMessage) => Promise<void>;

/** A claimed destination stays ours this long; a worker that died mid-send is taken over after it. */
const LEASE_SECONDS = 120;

export async function renderReport(
  report: Report,
  runAt: Date,
): Promise<{ widgets: WidgetData[]; rendered: RenderedReport }> {
  const timeZone = validZone(await getOrganizationTimezone(report.organizationId));
  const ctx = { orgId: report.organizationId, context: report.context, now: runAt, timeZone };
  const widgets: WidgetData[] = [];
  // One widget after another: each is one or two warehouse statements; a report has few widgets.
  for (const w of report.widgets) widgets.push(await renderWidget(ctx, w));
  const attachments = await renderAttachments(widgets, report, runAt.toISOString());
  return { widgets, rendered: formatReport(report, runAt.toISOString(), widgets, attachments) };
}

export interface RunOutcome {
  status: 'DELIVERED' | 'SKIPPED';
  reason?: string;
  sent: number;
  alreadyDone: number;
}

/**
 * Delivers one run: renders once, then each destination (each e-mail address, each Slack channel)
 * is claimed by a conditional write before it is sent, so a redelivered message or a second sweep
 * sends each destination once, and a destination that failed is retried without resending the
 * others. Any failure throws after every destination was tried, so SQS retries the message (then
 * its DLQ).
 */
export async function deliverRun(
  msg: DeliveryMessage,
  senders: Senders,
  clock = () => new Date(),
): Promise<RunOutcome> {
  const report = await getReport(msg.orgId, msg.reportId, { consistent: true });
  if (!report || report.archivedAt)
    return { status: 'SKIPPED', reason: 'gone or archived', sent: 0, alreadyDone: 0 };
  if (msg.trigger === 'SCHEDULE' && report.status !== 'ACTIVE')
    return { status: 'SKIPPED', reason: 'inactive', sent: 0, alreadyDone: 0 };
  const targets: Pick<ReportDelivery, 'destinationType' | 'destination'>[] = report.destinations.flatMap(
    (d) =>
      [...new Set(d.destinationValues)].map((value) => ({
        destinationType: d.destinationType,
        destination: value,
      })),
  );
  let rendered: RenderedReport | undefined;
  let sent = 0;
  let alreadyDone = 0;
  const failures: string[] = [];
  for (const t of targets) {
    const record = { reportId: report.id, runAt: msg.runAt, trigger: msg.trigger, ...t };
    const claim = await claimDelivery(msg.orgId, record, clock(), LEASE_SECONDS);
    if (!claim) {
      alreadyDone++;
      continue;
    }
    try {
      rendered ??= (await renderReport(report, new Date(msg.runAt))).rendered;
      if (t.destinationType === 'EMAIL')
        await senders.email(t.destination, rendered, {
          'X-Report-Id': report.id,
          'X-Report-Run': msg.runAt,
        });
      else
        await senders.slack(t.destination, rendered, {
          done: claim.steps,
          refs: claim.refs,
          mark: (step, ref) => markDeliveryStep(msg.orgId, record, step, ref),
        });
      await finishDelivery(msg.orgId, record, { status: 'SENT', error: null, at: clock() });
      sent++;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.warn('report destination failed', {
        reportId: report.id,
        runAt: msg.runAt,
        destinationType: t.destinationType,
        error: message,
      });
      await finishDelivery(msg.orgId, record, {
        status: 'FAILED',
        error: message.slice(0, 500),
        at: clock(),
      });
      failures.push(`${t.destinationType} ${t.destination}: ${message}`);
    }
  }
  if (failures.length) throw new Error(`${failures.length} destination(s) failed: ${failures.join('; ')}`);
  return { status: 'DELIVERED', sent, alreadyDone };
}

/**
 * The `report-sweep`: reads the due index (never a scan), re-reads each report strongly, enqueues
 * its run (key: report id + scheduled time) and moves its next run past `now` with a conditional
 * write, so a second or concurrent sweep finds nothing to do for that run. A late sweep delivers the
 * latest missed run once and schedules the next one after `now` (missed runs are not replayed).
 */
export async function sweepDueReports(
  now: Date,
  enqueue: Enqueue,
  /** Sweeps only the organisations it accepts (every one when omitted). */
  only: (orgId: string) => boolean = () => true,
): Promise<{ due: number; enqueued: number }> {
  const due = (await listDueReports(now.toISOString())).filter((d) => only(d.orgId));
  let enqueued = 0;
  for (const d of due) {
    const report = await getReport(d.orgId, d.reportId, { consistent: true });
    if (!report?.nextRunAt || report.nextRunAt > now.toISOString()) continue;
    const runAt = report.nextRunAt;
    const timeZone = await getOrganizationTimezone(report.organizationId);
    const next = isDeliverable(report) ? nextRunAfter(report, now, { timeZone: timeZone ?? null }) : null;
    if (isDeliverable(report)) {
      // Enqueue first: if the advance then fails, the next sweep enqueues the same run again and
      // the delivery records keep it to one send per destination.
      await enqueue({
        type: 'report-delivery',
        orgId: report.organizationId,
        reportId: report.id,
        runAt,
        trigger: 'SCHEDULE',
      });
      enqueued++;
    }
    await advanceNextRun(report, runAt, next);
  }
  return { due: due.length, enqueued };
}

export interface BackfillResult {
  /** Active, scheduled, unarchived reports found without a next run. */
  found: number;
  /** Given their next run (and put on the due index). */
  scheduled: number;
  /** Edited meanwhile (the edit computed the next run), so left alone. */
  raced: number;
}

/**
 * Gives every deliverable report stored before scheduling landed (no `nextRunAt`, so never on the
 * due index and never swept) its next run after `now`, in its organisation's timezone. Idempotent:
 * a report that has a next run is not touched. Scans the table once (the one-off migration).
 */
export async function backfillNextRuns(now = new Date()): Promise<BackfillResult> {
  const result: BackfillResult = { found: 0, scheduled: 0, raced: 0 };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await scanReportsWithoutNextRun(start);
    for (const report of page.items.filter(isDeliverable)) {
      result.found++;
      const timeZone = await getOrganizationTimezone(report.organizationId);
      const next = nextRunAfter(report, now, { timeZone: timeZone ?? null });
      if (!next) continue; // a WEEKLY report without a weekday: validation refuses it today
      if (await setFirstNextRun(report, next)) result.scheduled++;
      else result.raced++;
    }
    start = page.next;
  } while (start);
  return result;
}
