import type { ScheduledEvent } from 'aws-lambda';
import { sweepDueAlerts } from '../../shared/domain/alerts/evaluate';
import { withInvocationLogContext } from '../../shared/log';

/** Enqueues every due alert (the due index, never a scan); archived and snoozed ones are skipped. */
async function run(event: ScheduledEvent): Promise<{ enqueued: number; snoozed: number; messages: number }> {
  const now = event.time ? new Date(event.time) : new Date();
  return sweepDueAlerts(Number.isNaN(now.getTime()) ? new Date() : now);
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
