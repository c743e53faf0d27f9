import type { ScheduledEvent } from 'aws-lambda';
import { sweepOutbox } from '../../shared/domain/billing/outbox';
import { orgFilterOf } from '../../shared/domain/common/sweep-filter';
import { withInvocationLogContext } from '../../shared/log';

/**
 * Resends outbox entries whose send failed after their transaction committed (see outbox-repo). A
 * `detail.orgIds` list (the local tick only; EventBridge sends `{}`) sweeps just those organisations.
 */
async function run(event: ScheduledEvent): Promise<{ sent: number; failed: number }> {
  const now = event.time ? new Date(event.time) : new Date();
  const only = orgFilterOf(event.detail);
  return sweepOutbox(
    Number.isNaN(now.getTime()) ? new Date() : now,
    undefined,
    only && ((e) => only(e.orgId)),
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
