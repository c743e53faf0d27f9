import { wallClock } from '../queries/period';
import type { StoredAlert } from './model';
import { addDays, isoWeekStart } from './schedule';

/**
 * Dedup rules (docs/alerts.md): CALENDAR WEEK/MONTH — at most one notification per calendar week
 * (ISO, Monday to Sunday) or month of the organisation's calendar: the window holding the
 * evaluation's local date (`localDay`: when the notification goes out, read in the organisation's
 * timezone, UTC when it has none); ROLLING — at most one per `dedupWindowDays` days of evaluated
 * billing days (a notification on day d blocks days d+1 … d+window−1); no dedup (threshold
 * variants) — at most one per evaluated day. The store applies the rule with one conditional write
 * (`claimDedup`).
 */
export type DedupRule =
  | { kind: 'WINDOW'; windowKey: string }
  | { kind: 'ROLLING' /** The latest previous notification day that no longer blocks. */; notAfter: string };

/** The date (`YYYY-MM-DD`) of the instant `at` in `timeZone` (UTC when unset or unknown). */
export function localDay(at: Date, timeZone: string | undefined): string {
  return wallClock(at, timeZone ?? 'UTC')
    .toISOString()
    .slice(0, 10);
}

/**
 * The rule for a notification about `evaluatedDay` sent on `day` (the organisation's local date of
 * the evaluation, `localDay`): CALENDAR windows follow `day`, the others `evaluatedDay`.
 */
export function dedupRule(
  alert: Pick<StoredAlert, 'dedupKind' | 'dedupCalendarUnit' | 'dedupWindowDays'>,
  evaluatedDay: string,
  day: string,
): DedupRule {
  if (alert.dedupKind === 'CALENDAR') {
    return alert.dedupCalendarUnit === 'MONTH'
      ? { kind: 'WINDOW', windowKey: `M:${day.slice(0, 7)}` }
      : { kind: 'WINDOW', windowKey: `W:${isoWeekStart(day)}` };
  }
  if (alert.dedupKind === 'ROLLING') {
    return { kind: 'ROLLING', notAfter: addDays(evaluatedDay, -(alert.dedupWindowDays ?? 7)) };
  }
  return { kind: 'WINDOW', windowKey: `D:${evaluatedDay}` };
}

/** The same rule as a predicate on the stored state, for the backtest and for tests. */
export function dedupAllows(
  rule: DedupRule,
  state: { windowKey?: string; lastNotifiedDay?: string } | undefined,
): boolean {
  if (!state) return true;
  if (rule.kind === 'WINDOW') return state.windowKey !== rule.windowKey;
  return !state.lastNotifiedDay || state.lastNotifiedDay <= rule.notAfter;
}
