/** Days as epoch day numbers (days since 1970-01-01, UTC) and `YYYY-MM-DD` dates. */
export const DAY_MS = 86_400_000;
export const toDay = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
export const toDate = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
