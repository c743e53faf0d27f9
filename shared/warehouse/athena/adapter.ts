import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { newDataVersion } from '../../db/data-versions-repo';
import { writeCache } from '../../db/dimensions-repo';
import type { BillingSource, ConformanceReport, SourceChange } from '../../model/uploads';
import type { FeatureModel, RefreshMode } from '../../model/view-features';
import { compileCondition } from '../conditions';
import { checkStaged } from '../conformance/check';
import { commitmentsConformance } from '../conformance/contract-commitment';
import { query, withConnection } from '../duckdb/database';
import { BILLING_COLUMNS, CONTRACT_COMMITMENT_TABLE_COLUMNS } from '../focus-columns';
import { type StagedCommitments, stageContractCommitments } from '../ingest/contract-commitments';
import {
  changesOf,
  isMarkedDrop,
  keptChanges,
  REPLACED_PREFIX,
  type StatRow,
  versionStatsSql,
} from '../ingest/replacements';
import { inSourcesSql, sourceKeySql, sourceObjectName } from '../ingest/sources';
import { stageBillingFile } from '../ingest/stage';
import { downloadObject, downloadObjectIfExists, listObjectKeys, uploadObject } from '../object-store';
import type { DimensionValues, IngestInput, IngestResult, WarehousePort, WindowAggregates } from '../port';
import { toWindowAggregates } from '../sql/aggregates';
import { dimensionFields, dimensionValueRows } from '../sql/computed-dimensions';
import { missingRateOf } from '../sql/conversion';
import { athenaDialect, inlineParams } from '../sql/dialect';
import { quoteIdent, quoteLiteral } from '../sql/quote';
import type { Catalog, CurrencyConversion } from '../warehouse-query';
import { AthenaQueries } from './queries';
import {
  type AthenaCatalog,
  type AthenaFeatures,
  candidateSql,
  conditionTuplesSql,
  contractCommitmentKey,
  contractCommitmentPrefix,
  curatedKey,
  dimensionValuesSql,
  type EnrichmentBinding,
  featureSource,
  LEGACY_CURATED_OBJECT,
  MAX_ATHENA_CONDITION_TUPLES,
  MAX_SOURCE_CHARS,
} from './sql';

export { AthenaQueries, type AthenaWarehouseOptions } from './queries';

/**
 * Where the object of a source month that upload `uploadId` replaced is kept, restorable:
 * `replaced/<uploadId>/org_id=<org>/billing_month=<m>/source-<hash>.parquet`, outside `curated/`
 * so the Glue table never reads it. The bucket's lifecycle rule expires `replaced/` after
 * RESTORABLE_DAYS (infra).
 */
export function replacedKey(uploadId: string, orgId: string, month: string, source: BillingSource): string {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(uploadId)) throw new Error(`invalid upload id ${uploadId}`);
  return `${REPLACED_PREFIX}${uploadId}/${curatedKey(orgId, month, sourceObjectName(source))}`;
}

/**
 * The warehouse on Athena: curated Parquet under `curated/org_id=<org>/billing_month=<m>/`
 * described by the Glue table (partition projection), queried in the configured workgroup.
 *
 * - Ingestion parses and checks the file with the same DuckDB code as the embedded adapter (in
 *   memory, in the worker), then writes one Parquet object per billing month and source
 *   (provider, billing account). A PutObject replaces the object whole, so a re-ingested source
 *   of a month is replaced atomically for every reader, and other sources of the month stay.
 * - A refresh stores the organisation's features (see ./sql.ts) in the DynamoDB catalog cache;
 *   queries compute them from the base table. Conditions of enrichments are evaluated at
 *   refresh time over the distinct inputs (one Athena query each) and kept as passing inputs.
 * The queries themselves are `AthenaQueries` (./queries.ts), which request-time code loads alone.
 */
export class AthenaWarehouse extends AthenaQueries implements WarehousePort {
  /**
   * One Parquet object per billing month and source (provider, billing account):
   * `billing_month=<m>/source-<hash>.parquet`, replaced whole by one PutObject, so a re-ingested
   * source is replaced atomically and other sources of the month stay. A month written before
   * objects were per source keeps its `data.parquet`: the sources it holds are replaced inside
   * it, by one PutObject conditional on the ETag read (a concurrent change fails the ingestion,
   * which is retried); sources it does not hold get their own objects.
   */
  async ingestFile(input: IngestInput): Promise<IngestResult> {
    const bucket = this.bucket();
    const uploadId = input.uploadId ?? `upl_${randomUUID()}`;
    return changingRows(input.orgId, () => this.ingest(bucket, uploadId, input));
  }

  private ingest(bucket: string, uploadId: string, input: IngestInput): Promise<IngestResult> {
    return withConnection(async (conn) => {
      const commitments = await stageContractCommitments(conn, input.path, input.orgId, input.sourceName);
      if (commitments) return this.keepContractCommitments(conn, input, commitments);
      const staged = await stageBillingFile(conn, input.path, input.orgId, input.sourceName);
      let conformance: ConformanceReport | undefined;
      const temp: string[] = [];
      const tempFile = () => {
        const file = join(tmpdir(), `curated-${randomUUID()}.parquet`);
        temp.push(file);
        return file;
      };
      const before: StatRow[] = [];
      const after: StatRow[] = [];
      try {
        // The conformance check reads the staged rows before any object is replaced.
        if (input.conformance !== false)
          conformance = await checkStaged(conn, staged, () =>
            this.storedContractCommitments(conn, input.orgId),
          );
        const columns = BILLING_COLUMNS.filter((c) => c.name !== 'org_id' && c.name !== 'billing_month')
          .map((c) => `${quoteIdent(c.name)} AS ${quoteIdent(c.name.toLowerCase())}`)
          .join(', ');
        const copy = (select: string, file: string) =>
          query(conn, `COPY (${select}) TO ${quoteLiteral(file)} (FORMAT parquet, COMPRESSION zstd)`);
        const stats = async (file: string, month: string, sources: BillingSource[]) =>
          (await query(
            conn,
            versionStatsSql(
              `read_parquet(${quoteLiteral(file)})`,
              'v',
              inSourcesSql('v', sources),
              quoteLiteral(month),
            ),
          )) as unknown as StatRow[];
        const rows = await query(
          conn,
          `SELECT DISTINCT s.billing_month AS month, ${sourceKeySql('s', true)} FROM ${staged.table} AS s ORDER BY 1, 2, 3`,
        );
        for (const month of staged.months) {
          const inMonth = `SELECT ${columns} FROM ${staged.table} AS s WHERE s.billing_month = ${quoteLiteral(month)}`;
          const sources: BillingSource[] = rows
            .filter((r) => String(r.month) === month)
            .map((r) => ({ provider: String(r.provider), account: String(r.account) }));
          const legacyFile = tempFile();
          const legacyKey = curatedKey(input.orgId, month, LEGACY_CURATED_OBJECT);
          const legacy = await downloadObjectIfExists(bucket, legacyKey, legacyFile);
          const housed = new Set<string>();
          if (legacy)
            for (const r of await query(
              conn,
              `SELECT DISTINCT ${sourceKeySql('l', true)} FROM read_parquet(${quoteLiteral(legacyFile)}) AS l`,
            ))
              housed.add(`${r.provider}\u0000${r.account}`);
          const inLegacy = sources.filter((x) => housed.has(`${x.provider}\u0000${x.account}`));
          const afterOf = async (source: BillingSource) =>
            (await query(
              conn,
              versionStatsSql(
                staged.table,
                's',
                `s.billing_month = ${quoteLiteral(month)} AND ${inSourcesSql('s', [source])}`,
                's.billing_month',
              ),
            )) as unknown as StatRow[];
          /** Records a replaced source month; keeps its version before (`file`) when it dropped markedly. */
          const replacedFrom = async (file: string, source: BillingSource) => {
            const was = await stats(file, month, [source]);
            const now = await afterOf(source);
            before.push(...was);
            after.push(...now);
            const [change] = changesOf(was, now);
            if (!change || !isMarkedDrop(change)) return;
            let keep = file;
            if (legacy && file === legacyFile) {
              keep = tempFile();
              await copy(
                `SELECT * FROM read_parquet(${quoteLiteral(file)}) AS l WHERE ${inSourcesSql('l', [source])}`,
                keep,
              );
            }
            await uploadObject(bucket, replacedKey(uploadId, input.orgId, month, source), keep);
          };
          if (legacy && inLegacy.length) {
            for (const source of inLegacy) await replacedFrom(legacyFile, source);
            const file = tempFile();
            await copy(
              `SELECT * FROM read_parquet(${quoteLiteral(legacyFile)}) AS l WHERE NOT ${inSourcesSql('l', inLegacy)}
               UNION ALL BY NAME ${inMonth} AND ${inSourcesSql('s', inLegacy)}`,
              file,
            );
            await uploadObject(bucket, legacyKey, file, { ifMatch: legacy.etag });
          }
          for (const source of sources.filter((x) => !inLegacy.includes(x))) {
            const key = curatedKey(input.orgId, month, sourceObjectName(source));
            const previous = tempFile();
            if (await downloadObjectIfExists(bucket, key, previous)) await replacedFrom(previous, source);
            const file = tempFile();
            await copy(`${inMonth} AND ${inSourcesSql('s', [source])}`, file);
            await uploadObject(bucket, key, file);
          }
        }
      } finally {
        await conn.run(`DROP TABLE IF EXISTS ${staged.table}`);
        await Promise.all(temp.map((file) => rm(file, { force: true })));
      }
      const { changes } = keptChanges(changesOf(before, after), 's');
      return {
        format: staged.format,
        rows: staged.rows,
        months: staged.months,
        ...(changes.length ? { replaced: changes } : {}),
        ...(conformance ? { conformance } : {}),
      };
    });
  }

  /**
   * The ContractCommitmentIds of the organisation's Contract Commitment dataset as stored (its
   * objects under `curated/contract-commitments/org_id=<org>/`, read with the table's own column
   * names), for the cross-dataset check of a billing file's ContractApplied; null when it has none.
   */
  private async storedContractCommitments(conn: DuckDBConnection, orgId: string): Promise<string[] | null> {
    const keys = await listObjectKeys(this.bucket(), contractCommitmentPrefix(orgId));
    if (!keys.length) return null;
    const files = keys.map(() => join(tmpdir(), `contract-${randomUUID()}.parquet`));
    try {
      await Promise.all(keys.map((key, i) => downloadObject(this.bucket(), key, files[i] as string)));
      const [row] = await query(
        conn,
        `SELECT list(DISTINCT contractcommitmentid) FILTER (WHERE contractcommitmentid IS NOT NULL) AS ids FROM read_parquet([${files.map(quoteLiteral).join(', ')}])`,
      );
      return (row?.ids as string[] | null) ?? [];
    } finally {
      await Promise.all(files.map((file) => rm(file, { force: true })));
    }
  }

  /**
   * A Contract Commitment dataset: checked, then one Parquet object per contract it names
   * (../athena/sql.ts, contractCommitmentKey), each replaced whole by one PutObject.
   */
  private async keepContractCommitments(
    conn: DuckDBConnection,
    input: IngestInput,
    staged: StagedCommitments,
  ): Promise<IngestResult> {
    const temp: string[] = [];
    try {
      const conformance = await commitmentsConformance(conn, staged, input.conformance);
      const columns = CONTRACT_COMMITMENT_TABLE_COLUMNS.filter((c) => c.name !== 'org_id')
        .map((c) => `${quoteIdent(c.name)} AS ${quoteIdent(c.name.toLowerCase())}`)
        .join(', ');
      const contracts = await query(conn, `SELECT DISTINCT "ContractId" AS id FROM ${staged.table}`);
      for (const { id } of contracts) {
        const file = join(tmpdir(), `contract-${randomUUID()}.parquet`);
        temp.push(file);
        const which = id === null ? 'IS NULL' : `= ${quoteLiteral(String(id))}`;
        await query(
          conn,
          `COPY (SELECT ${columns} FROM ${staged.table} WHERE "ContractId" ${which} ORDER BY rowid) TO ${quoteLiteral(file)} (FORMAT parquet, COMPRESSION zstd)`,
        );
        await uploadObject(
          this.bucket(),
          contractCommitmentKey(input.orgId, id === null ? null : String(id)),
          file,
        );
      }
      return {
        format: 'contract-commitment',
        rows: staged.rows,
        months: [],
        ...(conformance ? { conformance } : {}),
      };
    } finally {
      await conn.run(`DROP TABLE IF EXISTS ${staged.table}`);
      await Promise.all(temp.map((file) => rm(file, { force: true })));
    }
  }

  /**
   * Puts back, for each source month of `sources`, the object upload `uploadId` replaced
   * (`replaced/<uploadId>/…`): what the month's source holds now (its own object, or its rows
   * inside a legacy `data.parquet`, taken out of it by a conditional PutObject) is kept under
   * `restoreId` first. Source months whose kept object is gone (expired) are skipped.
   */
  async restoreReplaced(
    orgId: string,
    uploadId: string,
    restoreId: string,
    sources: SourceChange[],
  ): Promise<SourceChange[]> {
    const bucket = this.bucket();
    return changingRows(orgId, () => this.restore(bucket, orgId, uploadId, restoreId, sources));
  }

  private restore(
    bucket: string,
    orgId: string,
    uploadId: string,
    restoreId: string,
    sources: SourceChange[],
  ): Promise<SourceChange[]> {
    return withConnection(async (conn) => {
      const temp: string[] = [];
      const tempFile = () => {
        const file = join(tmpdir(), `restore-${randomUUID()}.parquet`);
        temp.push(file);
        return file;
      };
      const stats = async (file: string, month: string, source: BillingSource) =>
        (await query(
          conn,
          versionStatsSql(
            `read_parquet(${quoteLiteral(file)})`,
            'v',
            inSourcesSql('v', [source]),
            quoteLiteral(month),
          ),
        )) as unknown as StatRow[];
      const now: StatRow[] = [];
      const restored: StatRow[] = [];
      try {
        for (const { month, provider, account } of sources) {
          const source = { provider, account };
          const kept = tempFile();
          if (!(await downloadObjectIfExists(bucket, replacedKey(uploadId, orgId, month, source), kept)))
            continue;
          const key = curatedKey(orgId, month, sourceObjectName(source));
          const current = tempFile();
          // A repeated restore (a redelivered request) keeps the first copy of what it replaced.
          const aside = replacedKey(restoreId, orgId, month, source);
          const setAside = !(await downloadObjectIfExists(bucket, aside, tempFile()));
          if (await downloadObjectIfExists(bucket, key, current)) {
            now.push(...(await stats(current, month, source)));
            if (setAside) await uploadObject(bucket, aside, current);
          }
          const legacyFile = tempFile();
          const legacyKey = curatedKey(orgId, month, LEGACY_CURATED_OBJECT);
          const legacy = await downloadObjectIfExists(bucket, legacyKey, legacyFile);
          if (legacy && (await stats(legacyFile, month, source)).length) {
            now.push(...(await stats(legacyFile, month, source)));
            const out = tempFile();
            await query(
              conn,
              `COPY (SELECT * FROM read_parquet(${quoteLiteral(legacyFile)}) AS l WHERE ${inSourcesSql('l', [source])}) TO ${quoteLiteral(out)} (FORMAT parquet, COMPRESSION zstd)`,
            );
            await uploadObject(bucket, replacedKey(restoreId, orgId, month, source), out);
            const rest = tempFile();
            await query(
              conn,
              `COPY (SELECT * FROM read_parquet(${quoteLiteral(legacyFile)}) AS l WHERE NOT ${inSourcesSql('l', [source])}) TO ${quoteLiteral(rest)} (FORMAT parquet, COMPRESSION zstd)`,
            );
            await uploadObject(bucket, legacyKey, rest, { ifMatch: legacy.etag });
          }
          restored.push(...(await stats(kept, month, source)));
          await uploadObject(bucket, key, kept);
        }
      } finally {
        await Promise.all(temp.map((file) => rm(file, { force: true })));
      }
      return changesOf(now, restored, 'after');
    });
  }

  async refreshFeatures(orgId: string, model: FeatureModel, mode: RefreshMode): Promise<Catalog> {
    const previous = await this.stored(orgId);
    const full = mode === 'full' || !previous;
    const warnings: string[] = [];
    let labels = previous?.features.labels ?? [];
    let enrichments: EnrichmentBinding[] = previous?.features.enrichments ?? [];
    if (full) {
      labels = model.labels;
      enrichments = [];
      for (const doc of model.enrichments) {
        try {
          enrichments.push(await this.bind(orgId, doc));
        } catch (error) {
          warnings.push(`enrichment ${doc.name} skipped: ${(error as Error).message}`);
        }
      }
    }
    let features: AthenaFeatures = { labels, vdims: model.vdims, enrichments: enrichments.filter(Boolean) };
    let source = featureSource(this.table(), orgId, features);
    // Keep the inlined definitions within Athena's query size: drop the last-applied enrichments.
    while (source.sql.length > MAX_SOURCE_CHARS && features.enrichments.length) {
      const dropped = features.enrichments.at(-1);
      warnings.push(`enrichment ${dropped?.doc.name} skipped: too large to apply on Athena`);
      features = { ...features, enrichments: features.enrichments.slice(0, -1) };
      source = featureSource(this.table(), orgId, features);
    }
    const catalog: AthenaCatalog = {
      orgId,
      refreshedAt: new Date().toISOString(),
      mode: full ? 'full' : 'light',
      dimensions: source.dimensions,
      warnings: [...warnings, ...source.warnings],
      features,
    };
    await writeCache(orgId, 'catalog', randomUUID(), catalog.refreshedAt, catalog);
    const { features: _features, ...result } = catalog;
    return result;
  }

  /** Evaluates an enrichment's conditions over the distinct inputs of its candidate rows. */
  private async bind(orgId: string, doc: FeatureModel['enrichments'][number]): Promise<EnrichmentBinding> {
    if (!doc.conditions) return { doc };
    const condition = compileCondition(doc.conditions);
    if (!condition.fields.length) {
      if (condition.test([])) return { doc };
      throw new Error('its conditions are always false');
    }
    const rows = await this.runner.run(conditionTuplesSql(this.table(), orgId, doc, condition.fields));
    if (rows.length > MAX_ATHENA_CONDITION_TUPLES)
      throw new Error(`its conditions read more than ${MAX_ATHENA_CONDITION_TUPLES} distinct inputs`);
    const tuples = rows
      .map((r) => condition.fields.map((_, i) => (r[`c${i}`] === null ? null : String(r[`c${i}`]))))
      .filter((tuple) => condition.test(tuple));
    return { doc, passing: { fields: condition.fields, tuples } };
  }

  async candidateAggregates(
    orgId: string,
    months: string[],
    topValues: number,
    conversion?: CurrencyConversion,
  ): Promise<WindowAggregates> {
    const sql = candidateSql(this.table(), orgId, months, topValues, conversion);
    const [totals, keys, keyMonths, keyProviders, keyValues] = await Promise.all([
      this.runner.run(sql.months),
      this.runner.run(sql.keys),
      this.runner.run(sql.keyMonths),
      this.runner.run(sql.keyProviders),
      this.runner.run(sql.keyValues),
    ]).catch((e: unknown) => {
      throw missingRateOf(e);
    });
    const providers = new Map<string, string[]>();
    for (const r of keyProviders)
      providers.set(String(r.key), [...(providers.get(String(r.key)) ?? []), String(r.provider)]);
    return toWindowAggregates(
      { totals, keys, keyMonths, keyValues },
      (r) => providers.get(String(r.key)) ?? [],
    );
  }

  async dimensionValues(
    orgId: string,
    months: string[],
    dimensions: string[],
    topValues: number,
    conversion?: CurrencyConversion,
  ): Promise<DimensionValues> {
    const stored = await this.stored(orgId);
    const source = featureSource(this.table(), orgId, stored?.features, months);
    const ctx = {
      dialect: athenaDialect,
      params: inlineParams(),
      catalog: { dimensions: source.dimensions },
    };
    const { fields, skipped } = dimensionFields(dimensions, ctx);
    const sql = dimensionValuesSql(`${source.sql} AS src`, months, fields, topValues, conversion);
    const [[total], values] = await Promise.all([
      this.runner.run(sql.total),
      fields.length ? this.runner.run(sql.values) : Promise.resolve([]),
    ]).catch((e: unknown) => {
      throw missingRateOf(e);
    });
    return {
      total: Number(total?.total ?? 0),
      values: dimensionValueRows(values, fields),
      skipped,
    };
  }
}

/**
 * Runs a write of the org's objects between two new data versions (before: a request reading
 * while objects are replaced keys what it computes under a version that will not last; after:
 * the rows as written get a version of their own), the second whether or not the write failed
 * halfway. See docs/warehouse.md, `dataVersion`.
 */
async function changingRows<T>(orgId: string, write: () => Promise<T>): Promise<T> {
  await newDataVersion(orgId);
  try {
    return await write();
  } finally {
    await newDataVersion(orgId);
  }
}
