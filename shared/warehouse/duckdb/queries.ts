import type { DuckDBConnection } from '@duckdb/node-api';
import { BadRequestError } from '../../errors';
import type { MetricId } from '../focus-columns';
import type { UsageMetric, WarehouseQueries } from '../port';
import {
  type CommitmentFact,
  type CommitmentFactsQuery,
  type CommitmentTerms,
  commitmentFactsSql,
  commitmentTermsSql,
  toCommitmentFacts,
  toCommitmentTerms,
} from '../sql/commitments';
import { billingInfoSql, type CompiledQuery, seriesSql } from '../sql/compile';
import { missingRateOf } from '../sql/conversion';
import { duckDialect, positionalParams } from '../sql/dialect';
import { metricSql } from '../sql/expressions';
import { quoteIdent, quoteLiteral } from '../sql/quote';
import { toBillingInfo, toSeriesRows, toSeriesRowsByMeasure } from '../sql/rows';
import type { BillingInfo, Catalog, CostSeriesQuery, SeriesRow, UsageSeriesQuery } from '../warehouse-query';
import {
  BILLING_TABLE,
  CATALOG_TABLE,
  DATA_VERSION_TABLE,
  dataGeneration,
  query,
  withReadConnection,
} from './database';
import { orgObjects } from './names';
import { querySeries } from './series-read';

/**
 * The request-time queries of the embedded warehouse. `DuckDbWarehouse` (./adapter.ts) extends
 * this with ingestion and the refresh; HTTP routes load only this part (../queries.ts), so their
 * bundles carry neither the CEL library nor the ingestion code.
 */

/** Reads the org's catalog and whether its view exists; queries use the view once it does. */
export async function readCatalog(conn: DuckDBConnection, orgId: string): Promise<Catalog | undefined> {
  const [row] = await query(
    conn,
    `SELECT catalog FROM ${CATALOG_TABLE} WHERE org_id = $1 ORDER BY refreshed_at DESC LIMIT 1`,
    [orgId],
  );
  return row ? (JSON.parse(String(row.catalog)) as Catalog) : undefined;
}

/** Billing months as an SQL list; they come from the data and are checked against `YYYY-MM`. */
export function monthList(months: string[]): string {
  for (const m of months)
    if (!/^\d{4}-\d{2}$/.test(m)) throw new BadRequestError(`Invalid billing month ${m}`);
  return months.length ? months.map(quoteLiteral).join(', ') : 'NULL';
}

/**
 * Per-process memo of what only a write can change, keyed by `dataGeneration()`: an entry made at
 * an older generation is never answered. A failed read is not kept.
 */
const MEMO_LIMIT = 1000;
const memo = new Map<string, { generation: number; value: Promise<unknown> }>();

function memoised<T>(key: string, read: () => Promise<T>): Promise<T> {
  const generation = dataGeneration();
  const hit = memo.get(key);
  if (hit && hit.generation === generation) return hit.value as Promise<T>;
  const value = read();
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, { generation, value });
  value.catch(() => {
    if (memo.get(key)?.value === value) memo.delete(key);
  });
  return value;
}

/**
 * The relation queries read: the org's enriched view once a refresh built it, else the billing
 * table. Memoised until the next write (it changes only with a refresh).
 */
export function sourceFor(
  conn: DuckDBConnection,
  orgId: string,
): Promise<{ source: string; catalog?: Catalog }> {
  return memoised(`source|${orgId}`, () => readSource(conn, orgId));
}

async function readSource(
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

/**
 * `q` with `conversion.rowCurrency` set when every billing row of the org (NULLs counted) has the
 * same currency: the conversion then needs no per-row currency (see `seriesSql`). The org's
 * currencies are read once and kept until the next write.
 */
async function withRowCurrency<Q extends Pick<CostSeriesQuery, 'orgId' | 'conversion'>>(
  conn: DuckDBConnection,
  q: Q,
): Promise<Q> {
  if (!q.conversion) return q;
  const currencies = await memoised(`currencies|${q.orgId}`, async () =>
    (
      await query(
        conn,
        `SELECT DISTINCT "BillingCurrency" AS c FROM ${quoteIdent(BILLING_TABLE)} WHERE org_id = $1 LIMIT 2`,
        [q.orgId],
      )
    ).map((r) => (r.c === null || r.c === undefined ? null : String(r.c))),
  );
  const [only] = currencies;
  return currencies.length === 1 && only ? { ...q, conversion: { ...q.conversion, rowCurrency: only } } : q;
}

export class DuckDbQueries implements WarehouseQueries {
  readonly kind = 'duckdb' as const;

  billingMonths(orgId: string): Promise<string[]> {
    return withReadConnection(async (conn) =>
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
    return withReadConnection(async (conn) => {
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

  /** Memoised until the next write: the latest charge day and the currencies change only with an ingestion. */
  billingInfo(orgId: string, sinceMonth: string): Promise<BillingInfo> {
    return memoised(`info|${orgId}|${sinceMonth}`, () =>
      withReadConnection(async (conn) => {
        const ctx = { dialect: duckDialect, params: positionalParams() };
        const compiled = billingInfoSql(orgId, sinceMonth, quoteIdent(BILLING_TABLE), ctx);
        return toBillingInfo(await query(conn, compiled.sql, compiled.params));
      }),
    );
  }

  costSeriesMany(
    q: Omit<CostSeriesQuery, 'metricId' | 'groupBy'>,
    metricIds: MetricId[],
  ): Promise<SeriesRow[][]> {
    return withReadConnection(async (conn) => {
      const { source, catalog } = await sourceFor(conn, q.orgId);
      const ctx = { dialect: duckDialect, params: positionalParams(), ...(catalog ? { catalog } : {}) };
      const measures = metricIds.map((m) => metricSql(m, duckDialect));
      const compiled = seriesSql(await withRowCurrency(conn, { ...q, groupBy: null }), measures, source, ctx);
      const values = metricIds.length === 1 ? ['value'] : metricIds.map((_, i) => `value${i}`);
      const rows = await querySeries(conn, compiled, { ranked: false, values }).catch((e: unknown) => {
        throw missingRateOf(e);
      });
      return metricIds.length === 1
        ? [toSeriesRows(rows, [])]
        : toSeriesRowsByMeasure(rows, metricIds.length);
    });
  }

  costSeries(q: CostSeriesQuery): Promise<SeriesRow[]> {
    return withReadConnection(async (conn) => {
      const { source, catalog } = await sourceFor(conn, q.orgId);
      const ctx = { dialect: duckDialect, params: positionalParams(), ...(catalog ? { catalog } : {}) };
      const compiled = seriesSql(
        await withRowCurrency(conn, q),
        metricSql(q.metricId, duckDialect),
        source,
        ctx,
      );
      const rows = await querySeries(conn, compiled, seriesShape(q, compiled)).catch((e: unknown) => {
        throw missingRateOf(e);
      });
      return toSeriesRows(rows, compiled.groupBy);
    });
  }

  usageSeries(q: UsageSeriesQuery): Promise<SeriesRow[]> {
    return withReadConnection(async (conn) => {
      const { source, catalog } = await sourceFor(conn, q.orgId);
      const ctx = { dialect: duckDialect, params: positionalParams(), ...(catalog ? { catalog } : {}) };
      const compiled = seriesSql(
        q,
        duckDialect.col('ConsumedQuantity'),
        source,
        ctx,
        (c) => `${duckDialect.col('ConsumedUnit')} = ${c.params.add(q.consumedUnit)}`,
      );
      return toSeriesRows(await querySeries(conn, compiled, seriesShape(q, compiled)), compiled.groupBy);
    });
  }

  catalog(orgId: string): Promise<Catalog | undefined> {
    return withReadConnection((conn) => readCatalog(conn, orgId));
  }

  /** Memoised until the next write: the version moves only in a write's transaction. */
  dataVersion(orgId: string): Promise<string | undefined> {
    return memoised(`version|${orgId}`, () =>
      withReadConnection(async (conn) => {
        const [row] = await query(conn, `SELECT version FROM ${DATA_VERSION_TABLE} WHERE org_id = $1`, [
          orgId,
        ]);
        return row ? String(row.version) : undefined;
      }),
    );
  }

  /** Reads the billing table (the commitment columns are FOCUS columns, not computed dimensions). */
  commitmentFacts(q: CommitmentFactsQuery): Promise<CommitmentFact[]> {
    return withReadConnection(async (conn) => {
      const ctx = { dialect: duckDialect, params: positionalParams() };
      const compiled = commitmentFactsSql(q, quoteIdent(BILLING_TABLE), ctx);
      const rows = await query(conn, compiled.sql, compiled.params).catch((e: unknown) => {
        throw missingRateOf(e);
      });
      return toCommitmentFacts(rows, q.groupBy);
    });
  }

  commitmentTerms(orgId: string, range?: { start: string; end: string }): Promise<CommitmentTerms[]> {
    return withReadConnection(async (conn) => {
      const ctx = { dialect: duckDialect, params: positionalParams() };
      const compiled = commitmentTermsSql(orgId, range, quoteIdent(BILLING_TABLE), ctx);
      return toCommitmentTerms(await query(conn, compiled.sql, compiled.params));
    });
  }
}

/** The columns of a one-measure series statement: ranked (an `other` column) when grouped with a top N. */
function seriesShape(q: { topN?: number | undefined }, compiled: CompiledQuery) {
  return { ranked: q.topN !== undefined && compiled.groupBy.length > 0, values: ['value'] };
}
