import { AppError, DependencyUnavailableError } from '../../errors';
import { log } from '../../log';
import type { ExplorerRequest } from '../../model/query-model';
import type { WhereClause } from '../../model/where-clause';
import type { SeriesRow } from '../../warehouse/warehouse-query';
import { DEFAULT_TOP_N, MAX_TOP_N, OTHER } from './model';
import { type AggBy, bucketKey, DAY_MS, ymd } from './period';
import type { Grouped } from './series';

/**
 * What the engine says to the warehouse port and reads back: the 503 of a failed call, the top-N,
 * where clauses, timestamps, and the port's rows aligned into series.
 */

/** Any warehouse failure that is not a request error is the 503 of the route. */
export async function warehouseCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AppError) throw error;
    log.error('query engine: warehouse call failed', { what, error });
    throw new DependencyUnavailableError('WAREHOUSE_UNAVAILABLE', { cause: error });
  }
}

export function topNOf(request: ExplorerRequest): number {
  const asked = request.limitOverride ?? (request.displayOptions?.topN || undefined) ?? DEFAULT_TOP_N;
  return Math.min(asked, MAX_TOP_N);
}

export function andWhere(
  a: WhereClause | null | undefined,
  b: WhereClause | null | undefined,
): WhereClause | null {
  if (!a?.rules.length) return b?.rules.length ? b : null;
  if (!b?.rules.length) return a;
  return { combinator: 'and', rules: [a, b] };
}

/** A timestamp for the port: a date at midnight, or the full instant for hours. */
export function portTime(t: number): string {
  return t % DAY_MS === 0 ? ymd(t) : new Date(t).toISOString();
}

function groupKeyOf(row: SeriesRow, groupBy: string[]): Record<string, string | null> {
  return Object.fromEntries(groupBy.map((g) => [g, row.other ? OTHER : row.group[g] || null]));
}

/** Rows of the port into series aligned to `starts` (missing buckets: `fill`). */
export function align(
  rows: readonly SeriesRow[],
  groupBy: string[],
  starts: readonly number[],
  aggBy: AggBy,
  fill: number | null,
): Grouped[] {
  const index = new Map(starts.map((t, i) => [bucketKey(t, aggBy), i]));
  const groups = new Map<string, Grouped>();
  for (const r of rows) {
    const key = groupKeyOf(r, groupBy);
    const id = `${r.other ? '1' : '0'}${JSON.stringify(groupBy.map((g) => key[g]))}`;
    let g = groups.get(id);
    if (!g) {
      g = { key, values: starts.map(() => fill), ...(r.other ? { other: true as const } : {}) };
      groups.set(id, g);
    }
    const i = aggBy === 'Period' ? 0 : index.get(r.period);
    if (i !== undefined) g.values[i] = (g.values[i] ?? 0) + r.value;
  }
  if (!groupBy.length && !groups.size) groups.set('', { key: {}, values: starts.map(() => fill) });
  return [...groups.values()];
}

export function groupByOf(groupBy: string | string[] | null | undefined): string[] {
  if (groupBy === null || groupBy === undefined || groupBy === '') return [];
  return Array.isArray(groupBy) ? groupBy : [groupBy];
}
