import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { query } from '../../../shared/warehouse/duckdb/database';
import { querySeries } from '../../../shared/warehouse/duckdb/series-read';

/**
 * The series read as lists (`querySeries`) answers exactly the rows, in the same order, that the
 * statement read row by row answers: statements of each shape the series compiler writes, over
 * groups that miss some periods, ties, empty strings, NULL values and no rows at all.
 */
describe('series rows read as lists', () => {
  let db: DuckDBInstance;
  let conn: DuckDBConnection;

  beforeAll(async () => {
    db = await DuckDBInstance.create(':memory:');
    conn = await db.connect();
    // 40 days × 7 groups × 2 regions; group g6 only every third day, one NULL cost, '' as a group.
    await conn.run(`CREATE TABLE t AS
      SELECT strftime(DATE '2024-01-01' + (i % 40)::INT, '%Y-%m-%d') AS period,
             CASE WHEN (i // 40) % 7 = 5 THEN '' ELSE 'grp-' || ((i // 40) % 7) END AS g,
             CASE WHEN i // 280 = 0 THEN 'eu' ELSE 'us' END AS region,
             CASE WHEN i = 17 THEN NULL ELSE ((i * 7919) % 1000) / 10.0 END AS cost,
             ((i * 104729) % 500) / 10.0 AS list_cost
        FROM range(560) r(i)
       WHERE (i // 40) % 7 <> 6 OR (i % 40) % 3 = 0`);
  });

  afterAll(() => {
    conn.closeSync();
    db.closeSync();
  });

  const ranked = (
    topN: number,
  ) => `WITH base AS (SELECT period, g AS g0, sum(cost) AS value FROM t GROUP BY 1, 2),
    ranked AS (SELECT period, g0, value, dense_rank() OVER (ORDER BY total DESC, g0) AS rk
                 FROM (SELECT period, g0, value, sum(value) OVER (PARTITION BY g0) AS total FROM base) AS x)
    SELECT period, CASE WHEN rk <= ${topN} THEN g0 ELSE '' END AS g0, rk > ${topN} AS other, sum(value) AS value
      FROM ranked GROUP BY 1, 2, 3 ORDER BY period, other, g0 LIMIT 100001`;

  const cases: [string, string, string[], { ranked: boolean; values: string[] }][] = [
    ['ranked, top 3 and other', ranked(3), ['g'], { ranked: true, values: ['value'] }],
    ['ranked, every group shown', ranked(50), ['g'], { ranked: true, values: ['value'] }],
    [
      'two dimensions, unranked',
      'SELECT period, g AS g0, region AS g1, sum(cost) AS value FROM t GROUP BY 1, 2, 3 ORDER BY period, g0, g1 LIMIT 100001',
      ['g', 'region'],
      { ranked: false, values: ['value'] },
    ],
    [
      'ungrouped',
      'SELECT period, sum(cost) AS value FROM t GROUP BY 1 ORDER BY period LIMIT 100001',
      [],
      { ranked: false, values: ['value'] },
    ],
    [
      'ungrouped, two measures',
      'SELECT period, sum(cost) AS value0, sum(list_cost) AS value1 FROM t GROUP BY 1 ORDER BY period LIMIT 100001',
      [],
      { ranked: false, values: ['value0', 'value1'] },
    ],
    [
      'a NULL sum',
      "SELECT period, g AS g0, sum(cost) FILTER (WHERE period <> '2024-01-18') AS value FROM t GROUP BY 1, 2 ORDER BY period, g0 LIMIT 100001",
      ['g'],
      { ranked: false, values: ['value'] },
    ],
  ];

  it.each(cases)('%s', async (_name, sql, groupBy, shape) => {
    const expected = await query(conn, sql);
    expect(expected.length).toBeGreaterThan(30);
    const rows = await querySeries(conn, { sql, params: [], groupBy }, shape);
    // Same rows in the same order; key order aside (toEqual compares by key).
    expect(rows).toEqual(expected);
  });

  it('answers no rows for a statement without rows, grouped or not', async () => {
    const grouped =
      'SELECT period, g AS g0, sum(cost) AS value FROM t WHERE false GROUP BY 1, 2 ORDER BY period, g0';
    const total = 'SELECT period, sum(cost) AS value FROM t WHERE false GROUP BY 1 ORDER BY period';
    expect(
      await querySeries(
        conn,
        { sql: grouped, params: [], groupBy: ['g'] },
        { ranked: false, values: ['value'] },
      ),
    ).toEqual([]);
    expect(
      await querySeries(conn, { sql: total, params: [], groupBy: [] }, { ranked: false, values: ['value'] }),
    ).toEqual([]);
  });

  it('binds the statement parameters', async () => {
    const sql =
      'SELECT period, g AS g0, sum(cost) AS value FROM t WHERE region = $1 GROUP BY 1, 2 ORDER BY period, g0';
    const expected = await query(conn, sql, ['us']);
    expect(expected.length).toBeGreaterThan(0);
    const rows = await querySeries(
      conn,
      { sql, params: ['us'], groupBy: ['g'] },
      { ranked: false, values: ['value'] },
    );
    expect(rows).toEqual(expected);
  });
});
