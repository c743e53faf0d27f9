import type { ExplorerResult, PeriodOut } from '../../queries/model';
import { money, pct } from './figures';
import type { Change, Totals } from './widget-data';

// The change between a period and the one before it, by group: totals, the tree, its movers and
// the narrative a DIGEST or TOP_FLOP states.

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function relative(current: number, previous: number): number | null {
  return previous === 0 ? null : round(((current - previous) / Math.abs(previous)) * 100);
}

export function totalsOf(r: ExplorerResult): Totals {
  const current = r.queries[0]?.total ?? 0;
  const previous = r.comparison?.queries[0]?.total ?? 0;
  return { current, previous, diff: round(current - previous), relativeDiff: relative(current, previous) };
}

const keyOf = (group: Record<string, string | null>, dims: string[]) =>
  JSON.stringify(dims.map((d) => group[d] ?? null));

export interface Leaf {
  group: Record<string, string | null>;
  current: number;
  previous: number;
}

/** Pairs the current and previous series by group (a group missing on one side counts 0). */
export function leaves(r: ExplorerResult, dims: string[]): Leaf[] {
  const byKey = new Map<string, Leaf>();
  const add = (
    series: ExplorerResult['queries'][number]['series'] | undefined,
    side: 'current' | 'previous',
  ) => {
    for (const s of series ?? []) {
      const k = keyOf(s.group, dims);
      const leaf = byKey.get(k) ?? { group: s.group, current: 0, previous: 0 };
      leaf[side] += s.total ?? 0;
      byKey.set(k, leaf);
    }
  };
  add(r.queries[0]?.series, 'current');
  add(r.comparison?.queries[0]?.series, 'previous');
  return [...byKey.values()];
}

function isMover(c: { diff: number; relativeDiff: number | null }, minAbs: number, minRel: number): boolean {
  return Math.abs(c.diff) >= minAbs && (c.relativeDiff === null || Math.abs(c.relativeDiff) >= minRel);
}

/** The change tree: level i groups the leaves by the first i+1 dimensions. */
export function buildTree(
  items: Leaf[],
  dims: string[],
  minAbs: number,
  minRel: number,
  depth = 0,
  prefix: Record<string, string | null> = {},
): Change[] {
  const dim = dims[depth];
  if (dim === undefined) return [];
  const groups = new Map<string, Leaf[]>();
  for (const l of items) {
    const k = JSON.stringify(l.group[dim] ?? null);
    groups.set(k, [...(groups.get(k) ?? []), l]);
  }
  const nodes: Change[] = [];
  for (const [k, ls] of groups) {
    const value = JSON.parse(k) as string | null;
    const current = round(ls.reduce((a, l) => a + l.current, 0));
    const previous = round(ls.reduce((a, l) => a + l.previous, 0));
    const diff = round(current - previous);
    const group = { ...prefix, [dim]: value };
    const node: Change = {
      group,
      dimension: dim,
      value,
      current,
      previous,
      diff,
      relativeDiff: relative(current, previous),
      highlighted: false,
      children: buildTree(ls, dims, minAbs, minRel, depth + 1, group),
    };
    node.highlighted = isMover(node, minAbs, minRel);
    nodes.push(node);
  }
  return nodes.sort(
    (a, b) => Math.abs(b.diff) - Math.abs(a.diff) || String(a.value).localeCompare(String(b.value)),
  );
}

export function flatten(nodes: Change[]): Change[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

export const strip = ({ children: _c, ...rest }: Change): Omit<Change, 'children'> => rest;

const label = (v: string | null) => v ?? '(none)';

/**
 * The summary narrative, written by rules from the tree: the total's change, then each of the
 * three largest root-level movers, with "mostly <child>" when one child carries at least half of
 * its parent's change in the same direction.
 */
export function summarise(
  totals: Totals,
  tree: Change[],
  currency: string | null,
  period: PeriodOut,
): string {
  const verb = (d: number) => (d > 0 ? 'rose' : d < 0 ? 'fell' : 'was flat at');
  const lines: string[] = [];
  lines.push(
    totals.diff === 0
      ? `Total cost was flat at ${money(totals.current, currency)} for ${period.startDate} to ${period.endDate}.`
      : `Total cost ${verb(totals.diff)} ${money(Math.abs(totals.diff), currency)} (${pct(totals.relativeDiff)}) to ${money(totals.current, currency)} for ${period.startDate} to ${period.endDate}.`,
  );
  const movers = tree.filter((n) => n.highlighted && n.diff !== 0).slice(0, 3);
  for (const n of movers) {
    let line = `${label(n.value)} ${verb(n.diff)} ${money(Math.abs(n.diff), currency)} (${pct(n.relativeDiff)})`;
    const top = n.children.find((c) => Math.sign(c.diff) === Math.sign(n.diff));
    if (top && Math.abs(top.diff) >= Math.abs(n.diff) / 2) line += `, mostly ${label(top.value)}`;
    lines.push(`${line}.`);
  }
  if (!movers.length) lines.push('No group moved past the thresholds.');
  return lines.join(' ');
}
