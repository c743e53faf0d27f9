/** The alert-throughput bench's organisation and clock (`bench/alerts.bench.ts`). */
export const ORG = 'org_abench';
/** Alerts are created before this and swept at it: data is complete through 2024-09-29. */
export const CREATED = new Date('2024-10-02T05:00:00Z');
export const NOW = new Date('2024-10-02T06:00:00Z');

/** A where clause keeping the rows whose `field` is one of `value`. */
export const where = (field: string, value: string[]) => ({
  combinator: 'and',
  rules: [{ field, operator: 'in', value }],
});
