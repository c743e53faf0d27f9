import type { ScheduledEvent } from 'aws-lambda';
import { enqueue } from '../../shared/cloud/queue';
import { orgFilterOf } from '../../shared/domain/common/sweep-filter';
import { sweepDueReports } from '../../shared/domain/reports/delivery';
import { withInvocationLogContext } from '../../shared/log';
import { QUEUE } from '../../shared/queues';

/**
 * Every 15 minutes: enqueues the reports whose next run is due at the event's time. A `detail.orgIds`
 * list (the local tick only; EventBridge sends `{}`) sweeps just those organisations.
 */
async function run(event: ScheduledEvent): Promise<{ due: number; enqueued: number }> {
  const t = event.time ? new Date(event.time) : new Date();
  const now = Number.isNaN(t.getTime()) ? new Date() : t;
  return sweepDueReports(now, (m) => enqueue(QUEUE.reportDelivery, m), orgFilterOf(event.detail));
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
