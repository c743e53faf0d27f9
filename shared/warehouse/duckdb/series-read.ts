import type { DuckDBConnection } from '@duckdb/node-api';
import type { CompiledQuery } from '../sql/compile';
import { query, type Row } from './database';

/**
 * Reads a series statement's rows (`seriesSql`: columns `period`, `g0`…, `other` when ranked,
 * `value` or `value0`…) as one row per group holding lists: the period's index and each measure,
 * and the distinct periods once. The client library converts a result value by value, a string
 * costing most; a year of days for a hundred groups is 36,500 rows of four values each, read in
 * ~80 ms, where the lists are read in a few. The rows are then laid out again exactly as the
 * statement ordered them (by period, then `other`, then the groups): the same row objects, in the
 * same order, as `query` would answer.
 */
export async function querySeries(
  conn: DuckDBConnection,
  compiled: CompiledQuery,
  options: { ranked: boolean; values: readonly string[] },
): Promise<Row[]> {
  const groups = [...(options.ranked ? ['other'] : []), ...compiled.groupBy.map((_, i) => `g${i}`)];
  const keys = groups.map((g) => `r.${g}`);
  const lists = options.values.map((v) => `list(r.${v} ORDER BY p.pi) AS ${v}`);
  const sql = [
    `WITH r AS MATERIALIZED (${compiled.sql}),`,
    'p AS (SELECT period, (row_number() OVER (ORDER BY period) - 1)::INTEGER AS pi FROM (SELECT DISTINCT period FROM r) AS d)',
    `SELECT ${[
      `CASE WHEN row_number() OVER (${groups.length ? `ORDER BY ${keys.join(', ')}` : ''}) = 1 THEN (SELECT list(period ORDER BY pi) FROM p) END AS periods`,
      ...keys,
      'list(p.pi ORDER BY p.pi) AS pis',
      ...lists,
    ].join(', ')}`,
    'FROM r JOIN p ON r.period = p.period',
    ...(groups.length ? [`GROUP BY ${keys.join(', ')}`, `ORDER BY ${keys.join(', ')}`] : []),
  ].join('\n');
  const grouped = await query(conn, sql, compiled.params);
  const periods = (grouped[0]?.periods as string[] | null | undefined) ?? [];
  // Rows by period, each period's rows in the groups' order: the statement's own order.
  const byPeriod: Row[][] = periods.map(() => []);
  for (const g of grouped) {
    const pis = (g.pis as number[] | null) ?? [];
    const columns = options.values.map((v) => (g[v] as unknown[] | null) ?? []);
    pis.forEach((pi, k) => {
      const row: Row = { period: periods[pi] };
      for (const key of groups) row[key] = g[key];
      options.values.forEach((v, m) => {
        row[v] = columns[m]?.[k];
      });
      byPeriod[pi]?.push(row);
    });
  }
  return byPeriod.flat();
}
