/**
 * The widget field names of the first reports release (`view`, `groupBy: [...]`, `minCostChange`,
 * `minPercentChange`, `limit`), read for one release after the move to the reference product's
 * names (docs/report-delivery.md, "Widget names"). Requests that still send them are upgraded before
 * validation; stored reports are upgraded when read and written back with the new names on their
 * next write. A widget that mixes old and new names is left as is, so validation names the
 * unknown field.
 */
const LEGACY_DIGEST = ['view', 'minCostChange', 'minPercentChange', 'limit'] as const;
const NEW_DIGEST = [
  'additionalGroupBy',
  'minAbsoluteDiff',
  'minRelativeDiff',
  'topLargestAbsoluteChange',
  'display',
];

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `limit` (1–50) becomes the next allowed node count (5, 10, 15, 20), at most 20. */
function nodeCount(limit: unknown): unknown {
  if (typeof limit !== 'number' || !Number.isFinite(limit)) return limit;
  return Math.min(20, Math.max(5, Math.ceil(limit / 5) * 5));
}

function upgradeDigest(w: Obj): Obj {
  const legacy = Array.isArray(w.groupBy) || LEGACY_DIGEST.some((k) => k in w);
  if (!legacy || NEW_DIGEST.some((k) => k in w)) return w;
  const { view, groupBy, minCostChange, minPercentChange, limit, ...rest } = w;
  const dims = Array.isArray(groupBy) ? groupBy : groupBy === undefined ? [] : [groupBy];
  const out: Obj = { ...rest };
  if (dims.length) out.groupBy = dims[0];
  if (dims.length > 1) out.additionalGroupBy = dims.slice(1);
  // The old default view was TABLE; LIST (up to 4 group-bys) is the tree.
  out.display = view === 'LIST' ? 'tree' : view === undefined || view === 'TABLE' ? 'table' : view;
  if (minCostChange !== undefined) out.minAbsoluteDiff = minCostChange;
  if (minPercentChange !== undefined) out.minRelativeDiff = minPercentChange;
  if (limit !== undefined) out.topLargestAbsoluteChange = nodeCount(limit);
  return out;
}

function upgradeTopFlop(w: Obj): Obj {
  if (!('limit' in w) || 'topN' in w || 'flopN' in w) return w;
  const { limit, ...rest } = w;
  return { ...rest, topN: limit, flopN: limit };
}

export function upgradeWidget(w: unknown): unknown {
  if (!isObj(w)) return w;
  if (w.type === 'DIGEST') return upgradeDigest(w);
  if (w.type === 'TOP_FLOP') return upgradeTopFlop(w);
  return w;
}

/** A report body (create, PATCH) or stored report with its widgets upgraded; anything else unchanged. */
export function upgradeWidgets<T>(body: T): T {
  if (!isObj(body) || !Array.isArray(body.widgets)) return body;
  return { ...body, widgets: body.widgets.map(upgradeWidget) } as T;
}
