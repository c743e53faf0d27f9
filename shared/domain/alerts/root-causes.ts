import type { RootCause, RootCauses } from '../../model/alerts';
/**
 * Root causes of a firing, pure: given each dimension value's amount over the evaluated period
 * (`after`) and over its baseline (`before`), the values whose change explains most of the total
 * change. The engine-backed source that reads the amounts is `root-cause-source.ts`; the method is
 * in docs/alerts.md ("Root causes").
 */

/** Contributors shown per message. */
export const TOP_CONTRIBUTORS = 5;

const pct = (part: number, whole: number): number | null => (whole === 0 ? null : (part / whole) * 100);

/** Every dimension value's change, largest absolute change first (ties by label). */
export function rankChanges(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): RootCause[] {
  const totalChange = sum(after) - sum(before);
  const labels = [...new Set([...before.keys(), ...after.keys()])];
  return labels
    .map((label) => {
      const b = before.get(label) ?? 0;
      const a = after.get(label) ?? 0;
      return {
        label,
        before: b,
        after: a,
        change: a - b,
        changePercent: pct(a - b, b),
        share: pct(a - b, totalChange),
      };
    })
    .filter((c) => c.change !== 0)
    .sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || x.label.localeCompare(y.label));
}

export function sum(m: ReadonlyMap<string, number>): number {
  let t = 0;
  for (const v of m.values()) t += v;
  return t;
}

/** The root causes over the amounts per group (labels as `RootCause.label`). */
export function rootCausesOf(
  what: Pick<RootCauses, 'dimension' | 'query' | 'period' | 'baseline'>,
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  n = TOP_CONTRIBUTORS,
): RootCauses {
  const b = sum(before);
  const a = sum(after);
  const top = rankChanges(before, after).slice(0, n);
  const covered = top.reduce((t, c) => t + c.change, 0);
  return { ...what, before: b, after: a, change: a - b, top, explained: pct(covered, a - b) };
}
