/** What the end-to-end suites each need: their own ids, and days as the billing rows write them. */

export const DAY_MS = 86_400_000;

/** The UTC day of an instant in epoch milliseconds, `YYYY-MM-DD`. */
export const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The first day (`YYYY-MM-DD`) of the month `offset` months before `now`'s (UTC; a negative offset: after). */
export function monthStart(now: Date, offset: number): string {
  return ymd(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - offset, 1));
}

/** A suite's own organisation and user, `org_<prefix><run>` and `user_<prefix><run>`, for a random `run`. */
export function suiteIds(prefix: string): { run: string; orgId: string; userId: string } {
  const run = Math.random().toString(36).slice(2, 8);
  return { run, orgId: `org_${prefix}${run}`, userId: `user_${prefix}${run}` };
}
