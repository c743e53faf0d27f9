import type { ScheduledEvent } from 'aws-lambda';
import { sweepDeps } from '../../shared/domain/alerts/adapters/sweep';
import { sweepDueAlerts } from '../../shared/domain/alerts/sweep';
import { orgFilterOf } from '../../shared/domain/common/sweep-filter';
import { withInvocationLogContext } from '../../shared/log';

/**
 * Enqueues every due alert (the due index, never a scan); archived and snoozed ones are skipped.
 * A `detail.orgIds` list (the local tick only; EventBridge sends `{}`) sweeps just those organisations.
 */
async function run(event: ScheduledEvent): Promise<{ enqueued: number; snoozed: number; messages: number }> {
  const now = event.time ? new Date(event.time) : new Date();
  return sweepDueAlerts(
    Number.isNaN(now.getTime()) ? new Date() : now,
    sweepDeps(),
    orgFilterOf(event.detail),
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
