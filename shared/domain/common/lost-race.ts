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

/** One versioned write (`changeVersioned`): how to read, check, change and write the record. */
export interface VersionedChange<T, N, R> {
  /** The version the caller sent (If-Match or a body `version`); undefined: last writer wins. */
  expected: number | undefined;
  /** Reads the current record with the checks that come before the version's (404, 403, 409 archived). */
  read: () => Promise<T>;
  version: (current: T) => number;
  /** The record to write, or null when nothing changes (then `unchanged` answers, nothing is written). */
  change: (current: T, attempt: number) => N | null | Promise<N | null>;
  /** The write conditional on `version(current)`; its ConflictError is a lost race. */
  replace: (next: N, current: T) => Promise<R>;
  unchanged: (current: T) => R;
}

/**
 * The loop of every versioned write: read, a stale `expected` version is a 409 `VERSION_CONFLICT`,
 * change, write conditionally on the version read; a lost race without an expected version is
 * tried again on a fresh read (`retryLostRace`). Errors of `read` and `change` are never retried.
 */
export async function changeVersioned<T, N, R>(w: VersionedChange<T, N, R>): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const current = await w.read();
    if (w.expected !== undefined && w.expected !== w.version(current))
      throw new ConflictError('VERSION_CONFLICT');
    const next = await w.change(current, attempt);
    if (next === null) return w.unchanged(current);
    try {
      return await w.replace(next, current);
    } catch (error) {
      if (await retryLostRace(error, w.expected, attempt)) continue;
      throw error;
    }
  }
}
