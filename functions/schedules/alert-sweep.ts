import type { ScheduledEvent } from 'aws-lambda';
import { sweepDueAlerts } from '../../shared/domain/alerts/evaluate';

/** Enqueues every due alert (the due index, never a scan); archived and snoozed ones are skipped. */
export async function handler(event: ScheduledEvent): Promise<{ enqueued: number; snoozed: number }> {
  const now = event.time ? new Date(event.time) : new Date();
  return sweepDueAlerts(Number.isNaN(now.getTime()) ? new Date() : now);
}
