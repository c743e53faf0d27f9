import { sendToQueue } from '../../cloud/queue';
import {
  deleteOutboxEntry,
  dueOutboxEntries,
  type OutboxEntry,
  recordOutboxAttempt,
} from '../../db/outbox-repo';
import { log } from '../../log';

/**
 * Sends one committed outbox entry and deletes it. A failed send leaves the entry for the sweep
 * and answers false; it never throws, because the change that wrote the entry has committed.
 */
export async function deliver(entry: OutboxEntry): Promise<boolean> {
  try {
    await sendToQueue(entry.queue, entry.body);
  } catch (error) {
    log.warn('outbox send failed; the sweep will retry', { id: entry.id, queue: entry.queue, error });
    await recordOutboxAttempt(entry);
    return false;
  }
  await deleteOutboxEntry(entry).catch((error) =>
    log.warn('outbox entry sent but not deleted; it will be sent again', { id: entry.id, error }),
  );
  return true;
}

/**
 * Sends every entry older than `graceSeconds` (younger ones are probably being sent by the
 * request that wrote them). Returns how many were sent and how many failed again. `only`
 * narrows the sweep (tests sharing one table sweep their own organisation's entries).
 */
export async function sweepOutbox(
  now: Date,
  graceSeconds = 30,
  only: (entry: OutboxEntry) => boolean = () => true,
): Promise<{ sent: number; failed: number }> {
  const cutoff = new Date(now.getTime() - graceSeconds * 1000).toISOString();
  const due = (await dueOutboxEntries(cutoff)).filter(only);
  let sent = 0;
  let failed = 0;
  for (const entry of due) {
    if (await deliver(entry)) sent++;
    else failed++;
  }
  return { sent, failed };
}
