import type { Principal } from '../../auth/principal';
import { BadRequestError, ConflictError } from '../../errors';

/**
 * Archive and snooze of a stored alert, cost or budget alike: each answers the changed alert, or
 * null when nothing changes (the write is skipped and the stored alert answered).
 */
interface Lifecycle {
  archivedAt: string | null;
  snoozedUntil: string | null;
  nextEvalAt: string | null;
  updatedAt: string;
}

/** Archived (idempotent): `archivedAt` set and off the due index, so it is never evaluated again. */
function archived<T extends Lifecycle>(current: T, now: Date): T | null {
  if (current.archivedAt) return null;
  const at = now.toISOString();
  return { ...current, archivedAt: at, nextEvalAt: null, updatedAt: at };
}

/** The instant of a snooze's `until`, which must be in the future (400 otherwise). */
function snoozeEnd(until: string, now: Date): string {
  const untilMs = Date.parse(until);
  if (!(untilMs > now.getTime())) throw new BadRequestError('until must be in the future');
  return new Date(untilMs).toISOString();
}

/** Snoozed until `end` (from `snoozeEnd`): an archived alert is a 409 `ALERT_ARCHIVED`. */
function snoozed<T extends Lifecycle>(current: T, end: string, now: Date): T | null {
  if (current.archivedAt) throw new ConflictError('ALERT_ARCHIVED');
  if (current.snoozedUntil === end) return null;
  return { ...current, snoozedUntil: end, updatedAt: now.toISOString() };
}

function unsnoozed<T extends Lifecycle>(current: T, now: Date): T | null {
  if (current.snoozedUntil === null) return null;
  return { ...current, snoozedUntil: null, updatedAt: now.toISOString() };
}

/** How a kind of alert applies a change under its version check (`changeOwnedAlert`). */
type ChangeAlert<T, R> = (
  principal: Principal,
  alertId: string,
  ifMatch: string | undefined,
  change: (current: T) => T | null,
) => Promise<R>;

/** Archive, snooze and unsnooze of a kind of alert, each a version-checked change. */
export function alertLifecycle<T extends Lifecycle, R>(change: ChangeAlert<T, R>) {
  return {
    /** Archives (idempotent): leaves the due index, so it is never evaluated again. */
    archive: (principal: Principal, alertId: string, ifMatch?: string, now = new Date()) =>
      change(principal, alertId, ifMatch, (current) => archived(current, now)),
    /** Snoozes until a future time: evaluations go on (history) but notify nothing until then. */
    snooze: (principal: Principal, alertId: string, until: string, ifMatch?: string, now = new Date()) => {
      const end = snoozeEnd(until, now);
      return change(principal, alertId, ifMatch, (current) => snoozed(current, end, now));
    },
    unsnooze: (principal: Principal, alertId: string, ifMatch?: string, now = new Date()) =>
      change(principal, alertId, ifMatch, (current) => unsnoozed(current, now)),
  };
}
