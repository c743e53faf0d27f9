import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SourceChange } from '../../model/uploads';
import type { FeatureModel, RefreshMode } from '../../model/view-features';
import { checkStaged } from '../conformance/check';
import { commitmentsConformance } from '../conformance/contract-commitment';
import { type StagedCommitments, stageContractCommitments } from '../ingest/contract-commitments';
import {
  changesOf,
  keptChanges,
  RESTORABLE_DAYS,
  type StatRow,
  versionStatsSql,
} from '../ingest/replacements';
import { sourceKeySql } from '../ingest/sources';
import { stageBillingFile } from '../ingest/stage';
import type { DimensionValues, IngestInput, IngestResult, WarehousePort, WindowAggregates } from '../port';
import { toWindowAggregates } from '../sql/aggregates';
import {
  computedOutputs,
  dimensionFields,
  dimensionValueRows,
  enrichmentChains,
  labelColumns,
  vdimColumns,
} from '../sql/computed-dimensions';
import { convertedAmountSql, missingRateOf } from '../sql/conversion';
import { duckDialect, inlineParams, positionalParams } from '../sql/dialect';
import { quoteIdent } from '../sql/quote';
import type { Catalog, ComputedDimension, CurrencyConversion } from '../warehouse-query';
import {
  BILLING_TABLE,
  bumpDataVersion,
  CATALOG_TABLE,
  CONTRACT_COMMITMENT_TABLE,
  duckTimestamp,
  inTransaction,
  query,
  REPLACED_TABLE,
  withConnection,
  withWriteLock,
} from './database';
import { type PreparedEnrichments, prepareEnrichments } from './enrichments';
import { orgObjects } from './names';
import { DuckDbQueries, monthList, readCatalog, sourceFor } from './queries';

export { monthList, readCatalog } from './queries';

/**
 * The embedded warehouse, whole: the queries of `DuckDbQueries` plus ingestion and the refresh
 * (which evaluates enrichment conditions with the CEL library, in ./enrichments.ts). Workers and
 * the local stack use this; request-time code loads `DuckDbQueries` alone.
 */

async function objectExists(conn: DuckDBConnection, kind: 'table' | 'view', name: string): Promise<boolean> {
  const sql =
    kind === 'table'
      ? 'SELECT count(*)::INT AS n FROM duckdb_tables() WHERE table_name = $1 AND NOT temporary'
      : 'SELECT count(*)::INT AS n FROM duckdb_views() WHERE view_name = $1 AND NOT temporary';
  const [row] = await query(conn, sql, [name]);
  return Number(row?.n ?? 0) > 0;
}

/**
 * The ContractCommitmentIds of the organisation's Contract Commitment dataset as stored, for the
 * cross-dataset check of a billing file's ContractApplied; null when it has none.
 */
async function storedContractCommitments(conn: DuckDBConnection, orgId: string): Promise<string[] | null> {
  const [row] = await query(
    conn,
    `SELECT count(*)::INT AS n, list(DISTINCT "ContractCommitmentId") FILTER (WHERE "ContractCommitmentId" IS NOT NULL) AS ids FROM ${CONTRACT_COMMITMENT_TABLE} WHERE org_id = $1`,
    [orgId],
  );
  return Number(row?.n ?? 0) ? ((row?.ids as string[] | null) ?? []) : null;
}

export class DuckDbWarehouse extends DuckDbQueries implements WarehousePort {
  /**
   * One transaction: insert the file's rows (a malformed row aborts the statement), then delete
   * the organisation's older rows of the billing sources (provider, billing account) the file
   * holds for each of its months (those of a source month that dropped markedly are moved into
   * `billing_replaced` under the upload's id, restorable for `RESTORABLE_DAYS`); other sources of
   * those months stay. Readers see a source's old month or
   * its new one, never both; a malformed file leaves nothing behind. Answers, per replaced source
   * month, its rows and cost before and after.
   */
  ingestFile(input: IngestInput): Promise<IngestResult> {
    return withWriteLock(() =>
      withConnection(async (conn) => {
        const commitments = await stageContractCommitments(conn, input.path, input.orgId, input.sourceName);
        if (commitments) return this.keepContractCommitments(conn, input, commitments);
        // Staged first (in file order, so a row's `rowid` is its data row): the conformance check
        // reads it before anything is replaced, then one INSERT copies it into the billing table.
        const staged = await stageBillingFile(conn, input.path, input.orgId, input.sourceName);
        const marker = staged.marker;
        const uploadId = input.uploadId ?? `upl_${randomUUID()}`;
        const now = new Date();
        try {
          const conformance =
            input.conformance === false
              ? undefined
              : await checkStaged(conn, staged, () => storedContractCommitments(conn, input.orgId));
          await conn.run('BEGIN TRANSACTION');
          try {
            const inserted = Number(
              (await conn.run(`INSERT INTO ${BILLING_TABLE} SELECT * EXCLUDE (__bad) FROM ${staged.table}`))
                .rowsChanged,
            );
            const months = (
              await query(
                conn,
                `SELECT DISTINCT billing_month AS m FROM ${BILLING_TABLE} WHERE org_id = $1 AND ingested_at = CAST($2 AS TIMESTAMP) ORDER BY 1`,
                [input.orgId, marker],
              )
            ).map((r) => String(r.m));
            // Only the billing sources the file holds for each month: (provider, billing account).
            const replaced = `b.org_id = $1 AND b.billing_month IN (${monthList(months)})
               AND b.ingested_at IS DISTINCT FROM CAST($2 AS TIMESTAMP)
               AND (b.billing_month, ${sourceKeySql('b')}) IN (
                 SELECT DISTINCT n.billing_month, ${sourceKeySql('n')} FROM ${BILLING_TABLE} AS n
                 WHERE n.org_id = $1 AND n.ingested_at = CAST($2 AS TIMESTAMP))`;
            const before = (await query(
              conn,
              versionStatsSql(BILLING_TABLE, 'b', replaced, 'b.billing_month'),
              [input.orgId, marker],
            )) as unknown as StatRow[];
            const after = (await query(
              conn,
              versionStatsSql(
                BILLING_TABLE,
                'b',
                'b.org_id = $1 AND b.ingested_at = CAST($2 AS TIMESTAMP)',
                'b.billing_month',
              ),
              [input.orgId, marker],
            )) as unknown as StatRow[];
            // The source months that dropped markedly keep their version before, restorable.
            const { changes, keptSql } = keptChanges(changesOf(before, after), 'b');
            if (changes.some((c) => c.kept))
              await query(
                conn,
                `INSERT INTO ${REPLACED_TABLE} BY NAME
                 SELECT b.*, $3 AS replaced_by, CAST($4 AS TIMESTAMP) AS replaced_at FROM ${BILLING_TABLE} AS b
                 WHERE ${replaced} AND ${keptSql}`,
                [input.orgId, marker, uploadId, duckTimestamp(now)],
              );
            await query(conn, `DELETE FROM ${BILLING_TABLE} AS b WHERE ${replaced}`, [input.orgId, marker]);
            await query(
              conn,
              `DELETE FROM ${REPLACED_TABLE} WHERE org_id = $1 AND replaced_at < CAST($2 AS TIMESTAMP)`,
              [input.orgId, duckTimestamp(new Date(now.getTime() - RESTORABLE_DAYS * 86_400_000))],
            );
            await bumpDataVersion(conn, input.orgId);
            await conn.run('COMMIT');
            return {
              format: staged.format,
              rows: inserted,
              months,
              ...(changes.length ? { replaced: changes } : {}),
              ...(conformance ? { conformance } : {}),
            };
          } catch (error) {
            await conn.run('ROLLBACK').catch(() => undefined);
            throw error;
          }
        } finally {
          await conn.run(`DROP TABLE IF EXISTS ${staged.table}`);
        }
      }),
    );
  }

  /**
   * A Contract Commitment dataset: checked, then its rows replace the organisation's rows of the
   * contracts it describes (a contract's terms are restated whole), in one transaction. No billing
   * month changes: the result has no months and no replaced sources.
   */
  private async keepContractCommitments(
    conn: DuckDBConnection,
    input: IngestInput,
    staged: StagedCommitments,
  ): Promise<IngestResult> {
    try {
      const conformance = await commitmentsConformance(conn, staged, input.conformance);
      await conn.run('BEGIN TRANSACTION');
      try {
        await query(
          conn,
          `DELETE FROM ${CONTRACT_COMMITMENT_TABLE} WHERE org_id = $1 AND "ContractId" IN (SELECT DISTINCT "ContractId" FROM ${staged.table})`,
          [input.orgId],
        );
        const rows = Number(
          (await conn.run(`INSERT INTO ${CONTRACT_COMMITMENT_TABLE} BY NAME SELECT * FROM ${staged.table}`))
            .rowsChanged,
        );
        await bumpDataVersion(conn, input.orgId);
        await conn.run('COMMIT');
        return { format: 'contract-commitment', rows, months: [], ...(conformance ? { conformance } : {}) };
      } catch (error) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      await conn.run(`DROP TABLE IF EXISTS ${staged.table}`);
    }
  }

  /**
   * Puts back the rows upload `uploadId` replaced, for the source months it replaced, in one
   * transaction; the rows they replace now are kept under `restoreId` (so a restore can be
   * restored in turn). Idempotent: once restored, nothing is left under `uploadId` and nothing
   * changes. Answers the source months put back (before: what they held, after: what was put back).
   */
  restoreReplaced(orgId: string, uploadId: string, restoreId: string): Promise<SourceChange[]> {
    // The kept rows say which source months they are: `sources` (from the record) is not needed.
    return withWriteLock(() =>
      withConnection(async (conn) => {
        const kept = `r.org_id = $1 AND r.replaced_by = $2`;
        const current = `b.org_id = $1 AND (b.billing_month, ${sourceKeySql('b')}) IN (
            SELECT DISTINCT r.billing_month, ${sourceKeySql('r')} FROM ${REPLACED_TABLE} AS r WHERE ${kept})`;
        await conn.run('BEGIN TRANSACTION');
        try {
          const restored = (await query(conn, versionStatsSql(REPLACED_TABLE, 'r', kept, 'r.billing_month'), [
            orgId,
            uploadId,
          ])) as unknown as StatRow[];
          const now = (await query(conn, versionStatsSql(BILLING_TABLE, 'b', current, 'b.billing_month'), [
            orgId,
            uploadId,
          ])) as unknown as StatRow[];
          await query(
            conn,
            `INSERT INTO ${REPLACED_TABLE} BY NAME
               SELECT b.*, $3 AS replaced_by, CAST($4 AS TIMESTAMP) AS replaced_at FROM ${BILLING_TABLE} AS b WHERE ${current}`,
            [orgId, uploadId, restoreId, duckTimestamp(new Date())],
          );
          await query(conn, `DELETE FROM ${BILLING_TABLE} AS b WHERE ${current}`, [orgId, uploadId]);
          await query(
            conn,
            `INSERT INTO ${BILLING_TABLE} BY NAME
               SELECT r.* EXCLUDE (replaced_by, replaced_at) FROM ${REPLACED_TABLE} AS r WHERE ${kept}`,
            [orgId, uploadId],
          );
          await query(conn, `DELETE FROM ${REPLACED_TABLE} AS r WHERE ${kept}`, [orgId, uploadId]);
          await bumpDataVersion(conn, orgId);
          await conn.run('COMMIT');
          // Each source month put back: what it held (before) and what it holds again (after).
          return changesOf(now, restored, 'after');
        } catch (error) {
          await conn.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    );
  }

  refreshFeatures(orgId: string, model: FeatureModel, mode: RefreshMode): Promise<Catalog> {
    return withWriteLock(() =>
      withConnection(async (conn) => {
        const { table, view } = orgObjects(orgId);
        const previous = await readCatalog(conn, orgId);
        const full = mode === 'full' || !previous || !(await objectExists(conn, 'table', table));
        const warnings: string[] = [];
        let materialised: ComputedDimension[];
        let build: { sql: string; params: string[] } | undefined;
        let prepared: PreparedEnrichments | undefined;
        if (full) {
          const params = positionalParams([orgId]);
          const ctx = { dialect: duckDialect, params };
          const { inner, outer: labelOut } = labelColumns(model.labels, ctx, warnings);
          prepared = await prepareEnrichments(conn, orgId, model.enrichments);
          warnings.push(...prepared.warnings);
          const chains = enrichmentChains(labelOut, prepared.applied, prepared.valueOf, warnings);
          const outputs = computedOutputs(labelOut, chains, quoteIdent);
          const outer = outputs.columns;
          materialised = outputs.dimensions;
          const hidden = [...inner.map((_, i) => `m_${i}`), ...prepared.innerNames];
          const exclude = hidden.length ? ` EXCLUDE (${hidden.join(', ')})` : '';
          build = {
            sql: `CREATE OR REPLACE TABLE ${quoteIdent(table)} AS SELECT *${exclude}${outer.length ? `, ${outer.join(', ')}` : ''} FROM (SELECT b.*${
              [...inner, ...prepared.innerColumns].length
                ? `, ${[...inner, ...prepared.innerColumns].join(', ')}`
                : ''
            } FROM ${quoteIdent(BILLING_TABLE)} b ${prepared.joins.join(' ')} WHERE b.org_id = $1)`,
            params: params.values,
          };
        } else {
          materialised = (previous?.dimensions ?? []).filter((d) => d.kind !== 'vdim');
        }
        // Virtual dimensions live in the view (a view takes no parameters: validated literals).
        const vctx = {
          dialect: duckDialect,
          params: inlineParams(),
          catalog: { dimensions: materialised },
          allowKinds: ['label', 'enrichment'] as const,
        };
        const vdims = vdimColumns(model.vdims, vctx, quoteIdent, warnings);
        const catalog: Catalog = {
          orgId,
          refreshedAt: new Date().toISOString(),
          mode: full ? 'full' : 'light',
          dimensions: [...materialised, ...vdims.dimensions],
          warnings,
        };
        try {
          await inTransaction(conn, async () => {
            if (build) await query(conn, build.sql, build.params);
            await conn.run(
              `CREATE OR REPLACE VIEW ${quoteIdent(view)} AS SELECT *${vdims.columns.length ? `, ${vdims.columns.join(', ')}` : ''} FROM ${quoteIdent(table)}`,
            );
            await query(conn, `DELETE FROM ${CATALOG_TABLE} WHERE org_id = $1`, [orgId]);
            await query(conn, `INSERT INTO ${CATALOG_TABLE} VALUES ($1, $2, CAST($3 AS TIMESTAMP))`, [
              orgId,
              JSON.stringify(catalog),
              catalog.refreshedAt.slice(0, 23).replace('T', ' '),
            ]);
          });
        } finally {
          await prepared?.cleanup();
        }
        return catalog;
      }),
    );
  }

  candidateAggregates(
    orgId: string,
    months: string[],
    topValues: number,
    conversion?: CurrencyConversion,
  ): Promise<WindowAggregates> {
    return withConnection(async (conn) => {
      const inMonths = monthList(months);
      const cost = convertedAmountSql('"BilledCost"', conversion, duckDialect);
      const totals = await query(
        conn,
        `SELECT billing_month AS month, coalesce(sum(${cost}), 0) AS cost FROM ${BILLING_TABLE}
          WHERE org_id = $1 AND billing_month IN (${inMonths}) GROUP BY 1 ORDER BY 1`,
        [orgId],
      );
      const kv = `kv_${Math.random().toString(36).slice(2, 10)}`;
      await query(
        conn,
        `CREATE TEMP TABLE ${kv} AS SELECT billing_month, "ProviderName" AS provider, ${cost} AS cost,
                unnest(map_keys("Tags")) AS k, unnest(map_values("Tags")) AS v
           FROM ${BILLING_TABLE} WHERE org_id = $1 AND billing_month IN (${inMonths}) AND cardinality("Tags") > 0`,
        [orgId],
      );
      try {
        const keys = await query(
          conn,
          `SELECT k AS key, coalesce(sum(cost), 0) AS cost, count(DISTINCT v)::INT AS n,
                  coalesce(list(DISTINCT provider ORDER BY provider) FILTER (WHERE provider IS NOT NULL), []) AS providers
             FROM ${kv} GROUP BY 1 ORDER BY 1`,
        );
        const keyMonths = await query(
          conn,
          `SELECT k AS key, billing_month AS month, coalesce(sum(cost), 0) AS cost FROM ${kv} GROUP BY 1, 2 ORDER BY 1, 2`,
        );
        const keyValues = await query(
          conn,
          `SELECT k AS key, v AS value, coalesce(sum(cost), 0) AS cost FROM ${kv} GROUP BY 1, 2
           QUALIFY row_number() OVER (PARTITION BY k ORDER BY coalesce(sum(cost), 0) DESC, v) <= $1 ORDER BY 1, 3 DESC, 2`,
          [topValues],
        );
        return toWindowAggregates(
          { totals, keys, keyMonths, keyValues },
          (r) => (r.providers as string[]) ?? [],
        );
      } finally {
        await conn.run(`DROP TABLE IF EXISTS ${kv}`);
      }
    }).catch((e: unknown) => {
      throw missingRateOf(e);
    });
  }

  dimensionValues(
    orgId: string,
    months: string[],
    dimensions: string[],
    topValues: number,
    conversion?: CurrencyConversion,
  ): Promise<DimensionValues> {
    return withConnection(async (conn) => {
      const cost = convertedAmountSql('"BilledCost"', conversion, duckDialect);
      const { source, catalog } = await sourceFor(conn, orgId);
      const inMonths = monthList(months);
      const params = positionalParams([orgId, String(topValues)]);
      const ctx = { dialect: duckDialect, params, ...(catalog ? { catalog } : {}) };
      const { fields, skipped } = dimensionFields(dimensions, ctx);
      const [total] = await query(
        conn,
        `SELECT coalesce(sum(${cost}), 0) AS total FROM ${source} WHERE org_id = $1 AND billing_month IN (${inMonths})`,
        [orgId],
      );
      if (!fields.length) return { total: Number(total?.total ?? 0), values: [], skipped };
      const rows = await query(
        conn,
        `WITH base AS (SELECT ${cost} AS cost, ${fields.map((f, i) => `${f.expr} AS f${i}`).join(', ')}
                         FROM ${source} WHERE org_id = $1 AND billing_month IN (${inMonths}))
         SELECT field, value, coalesce(sum(cost), 0) AS cost
           FROM (UNPIVOT base ON ${fields.map((_, i) => `f${i}`).join(', ')} INTO NAME field VALUE value)
          GROUP BY 1, 2
         QUALIFY row_number() OVER (PARTITION BY field ORDER BY coalesce(sum(cost), 0) DESC, value) <= CAST($2 AS INTEGER)
          ORDER BY 1, 3 DESC, 2`,
        params.values,
      );
      return {
        total: Number(total?.total ?? 0),
        values: dimensionValueRows(rows, fields),
        skipped,
      };
    }).catch((e: unknown) => {
      throw missingRateOf(e);
    });
  }
}
