import type { DuckDBConnection } from '@duckdb/node-api';
import { stageBillingFile } from '../ingest/normalise';
import type { IngestResult, UsageMetric, WarehousePort } from '../port';
import type { Catalog, CostSeriesQuery, SeriesRow, UsageSeriesQuery } from '../query-model';
import { duckDialect, metricSql, positionalParams, seriesSql, toSeriesRows } from '../sql/compile';
import { quoteIdent } from '../sql/quote';
import {
  BILLING_TABLE,
  CATALOG_TABLE,
  inTransaction,
  query,
  withConnection,
  withWriteLock,
} from './database';
import { orgObjects } from './names';

/** Reads the org's catalog and whether its view exists; queries use the view once it does. */
export async function readCatalog(conn: DuckDBConnection, orgId: string): Promise<Catalog | undefined> {
  const [row] = await query(
    conn,
    `SELECT catalog FROM ${CATALOG_TABLE} WHERE org_id = $1 ORDER BY refreshed_at DESC LIMIT 1`,
    [orgId],
  );
  return row ? (JSON.parse(String(row.catalog)) as Catalog) : undefined;
}

async function sourceFor(
  conn: DuckDBConnection,
  orgId: string,
): Promise<{ source: string; catalog?: Catalog }> {
  const catalog = await readCatalog(conn, orgId);
  if (!catalog) return { source: quoteIdent(BILLING_TABLE) };
  const { view } = orgObjects(orgId);
  const [exists] = await query(conn, 'SELECT count(*)::INT AS n FROM duckdb_views() WHERE view_name = $1', [
    view,
  ]);
  if (!exists || Number(exists.n) === 0) return { source: quoteIdent(BILLING_TABLE) };
  return { source: quoteIdent(view), catalog };
}

export class DuckDbWarehouse implements WarehousePort {
  readonly kind = 'duckdb' as const;

  ingestFile(input: { orgId: string; path: string; sourceName: string }): Promise<IngestResult> {
    return withWriteLock(() =>
      withConnection(async (conn) => {
        const staged = await stageBillingFile(conn, input.path, input.orgId, input.sourceName);
        try {
          await inTransaction(conn, async () => {
            await conn.run(
              `DELETE FROM ${BILLING_TABLE} WHERE org_id = $1 AND billing_month IN (SELECT DISTINCT billing_month FROM ${staged.table})`,
              [input.orgId],
            );
            await conn.run(`INSERT INTO ${BILLING_TABLE} SELECT * EXCLUDE (__bad) FROM ${staged.table}`);
          });
        } finally {
          await conn.run(`DROP TABLE IF EXISTS ${staged.table}`);
        }
        return { rows: staged.rows, months: staged.months };
      }),
    );
  }

  billingMonths(orgId: string): Promise<string[]> {
    return withConnection(async (conn) =>
      (
        await query(
          conn,
          `SELECT DISTINCT billing_month AS m FROM ${BILLING_TABLE} WHERE org_id = $1 ORDER BY 1 DESC`,
          [orgId],
        )
      ).map((r) => String(r.m)),
    );
  }

  usageMetrics(orgId: string): Promise<UsageMetric[]> {
    return withConnection(async (conn) => {
      const rows = await query(
        conn,
        `SELECT "ConsumedUnit" AS consumed_unit,
                coalesce(list(DISTINCT "ServiceName" ORDER BY "ServiceName") FILTER (WHERE "ServiceName" IS NOT NULL), []) AS service_names
           FROM ${BILLING_TABLE}
          WHERE org_id = $1 AND "ConsumedUnit" IS NOT NULL
          GROUP BY 1 ORDER BY 1`,
        [orgId],
      );
      return rows.map((r) => ({
        consumed_unit: String(r.consumed_unit),
        service_names: (r.service_names as string[]) ?? [],
      }));
    });
  }

  costSeries(q: CostSeriesQuery): Promise<SeriesRow[]> {
    return withConnection(async (conn) => {
      const { source, catalog } = await sourceFor(conn, q.orgId);
      const ctx = { dialect: duckDialect, params: positionalParams(), ...(catalog ? { catalog } : {}) };
      const compiled = seriesSql(q, metricSql(q.metricId, duckDialect), source, ctx);
      return toSeriesRows(await query(conn, compiled.sql, compiled.params), compiled.groupBy);
    });
  }

  usageSeries(q: UsageSeriesQuery): Promise<SeriesRow[]> {
    return withConnection(async (conn) => {
      const { source, catalog } = await sourceFor(conn, q.orgId);
      const ctx = { dialect: duckDialect, params: positionalParams(), ...(catalog ? { catalog } : {}) };
      const compiled = seriesSql(
        q,
        duckDialect.col('ConsumedQuantity'),
        source,
        ctx,
        (c) => `${duckDialect.col('ConsumedUnit')} = ${c.params.add(q.consumedUnit)}`,
      );
      return toSeriesRows(await query(conn, compiled.sql, compiled.params), compiled.groupBy);
    });
  }

  catalog(orgId: string): Promise<Catalog | undefined> {
    return withConnection((conn) => readCatalog(conn, orgId));
  }
}
