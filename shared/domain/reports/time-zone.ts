import { isTimeZone } from '../../validation';

/** The zone a report is scheduled and rendered in when its organisation has none. */
export const DEFAULT_TIME_ZONE = 'UTC';

/**
 * The zone if the runtime knows it, else UTC (an organisation's stored timezone is validated on
 * write). Apart from `schedule.ts` so that rendering a widget does not load luxon.
 */
export function validZone(timeZone: string | null | undefined): string {
  if (!timeZone) return DEFAULT_TIME_ZONE;
  return isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE;
}
