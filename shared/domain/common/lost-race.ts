import { ConflictError } from '../../errors';

/**
 * The rule of every versioned write (reports, dashboards, alerts): a caller who sends a version
 * (`If-Match: "3"` or a body `version`) gets 409 `VERSION_CONFLICT` when it is stale; a caller who
 * sends none, or `If-Match: *`, asks for last-writer-wins, so a write that loses a race to another
 * writer is applied again on the fresh copy, after a short random pause, up to this many times in
 * all. Each round at least one of the racing writers succeeds, so this many concurrent writers on
 * one record all succeed; past that a 409 `VERSION_CONFLICT` remains possible and is safe to retry.
 */
export const LOST_RACE_ATTEMPTS = 20;
/** The cap of the random pause between two attempts (full jitter, doubling from 5 ms). */
const MAX_PAUSE_MS = 200;

/**
 * True (after a pause) when a failed write should be tried again on a fresh read: it lost a race
 * (ConflictError from the conditional write), the caller sent no version and attempts remain.
 * `attempt` counts from 0.
 */
export async function retryLostRace(error: unknown, expectedVersion: number | undefined, attempt: number) {
  if (!(error instanceof ConflictError) || expectedVersion !== undefined) return false;
  if (attempt + 1 >= LOST_RACE_ATTEMPTS) return false;
  const pause = Math.random() * Math.min(MAX_PAUSE_MS, 5 * 2 ** attempt);
  await new Promise((resolve) => setTimeout(resolve, pause));
  return true;
}
