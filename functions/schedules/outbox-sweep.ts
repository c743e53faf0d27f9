import type { ScheduledEvent } from 'aws-lambda';
import { sweepOutbox } from '../../shared/domain/dimensions/outbox';

/** Resends outbox entries whose send failed after their transaction committed (see outbox-repo). */
export async function handler(event: ScheduledEvent): Promise<{ sent: number; failed: number }> {
  const now = event.time ? new Date(event.time) : new Date();
  return sweepOutbox(Number.isNaN(now.getTime()) ? new Date() : now);
}
