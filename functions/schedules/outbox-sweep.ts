import type { ScheduledEvent } from 'aws-lambda';
import { sweepOutbox } from '../../shared/domain/dimensions/outbox';
import { withInvocationLogContext } from '../../shared/log';

/** Resends outbox entries whose send failed after their transaction committed (see outbox-repo). */
async function run(event: ScheduledEvent): Promise<{ sent: number; failed: number }> {
  const now = event.time ? new Date(event.time) : new Date();
  return sweepOutbox(Number.isNaN(now.getTime()) ? new Date() : now);
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
