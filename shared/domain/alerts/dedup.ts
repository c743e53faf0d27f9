import type { DedupRule, StoredAlert } from '../../model/alerts';
import { wallClock } from '../queries/period';
import { addDays, isoWeekStart } from './schedule';

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
