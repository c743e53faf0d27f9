import { config } from '../../config';
import { readDataVersion } from '../../db/data-versions-repo';
import { readCache } from '../../db/dimensions-repo';
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
import { billingInfoSql, seriesSql } from '../sql/compile';
import { missingRateOf } from '../sql/conversion';
import { athenaDialect, athenaParams } from '../sql/dialect';
import { metricSql } from '../sql/expressions';
import { toBillingInfo, toSeriesRows } from '../sql/rows';
import type { BillingInfo, Catalog, CostSeriesQuery, SeriesRow, UsageSeriesQuery } from '../warehouse-query';
import { type AthenaRunner, athenaRunner } from './client';
import {
  type AthenaCatalog,
  type AthenaTable,
  billingMonthsSql,
  featureSource,
  rangeMonths,
  usageMetricsSql,
} from './sql';

/** Test seams: a runner, the Glue table and the bucket instead of the configured ones. */
export interface AthenaWarehouseOptions {
  runner?: AthenaRunner;
  table?: AthenaTable;
  bucket?: string;
}

/**
 * The request-time queries of the warehouse on Athena (see ./adapter.ts for the whole adapter):
 * each statement reads the Glue table through the derived table of the organisation's stored
 * features. HTTP routes load only this part (../queries.ts), so their bundles carry neither the
 * CEL library, nor the S3 client, nor DuckDB (used by ingestion to stage files).
 */
export class AthenaQueries implements WarehouseQueries {
  readonly kind = 'athena' as const;
  protected readonly runner: AthenaRunner;
  protected readonly options: AthenaWarehouseOptions;

  constructor(options: AthenaWarehouseOptions = {}) {
    this.options = options;
    this.runner = options.runner ?? athenaRunner();
  }

  protected table(): AthenaTable {
    if (this.options.table) return this.options.table;
    const { glueDatabase, glueTable } = config();
    if (!glueDatabase || !glueTable)
      throw new Error('GLUE_DATABASE and GLUE_TABLE must be set for WAREHOUSE=athena');
    return { database: glueDatabase, table: glueTable };
  }

  protected bucket(): string {
    const bucket = this.options.bucket ?? config().billingBucket;
    if (!bucket) throw new Error('BILLING_BUCKET must be set for WAREHOUSE=athena');
    return bucket;
  }

  protected async stored(orgId: string): Promise<AthenaCatalog | undefined> {
    return (await readCache<AthenaCatalog>(orgId, 'catalog'))?.payload;
  }

  async billingMonths(orgId: string): Promise<string[]> {
    return (await this.runner.run(billingMonthsSql(this.table(), orgId))).map((r) => String(r.m));
  }

  async usageMetrics(orgId: string): Promise<UsageMetric[]> {
    const rows = await this.runner.run(usageMetricsSql(this.table(), orgId));
    const byUnit = new Map<string, string[]>();
    for (const r of rows) {
      const unit = String(r.consumed_unit);
      const list = byUnit.get(unit) ?? [];
      if (r.service_name !== null) list.push(String(r.service_name));
      byUnit.set(unit, list);
    }
    return [...byUnit.entries()].map(([consumed_unit, services]) => ({
      consumed_unit,
      service_names: [...new Set(services)].sort(),
    }));
  }

  async billingInfo(orgId: string, sinceMonth: string): Promise<BillingInfo> {
    const ctx = { dialect: athenaDialect, params: athenaParams() };
    // The base table through the derived table that names the org as a literal (injected projection).
    const source = `${featureSource(this.table(), orgId, undefined).sql} AS src`;
    const compiled = billingInfoSql(orgId, sinceMonth, source, ctx);
    return toBillingInfo(await this.runner.run(compiled.sql, compiled.params));
  }

  protected async series(
    q: Omit<CostSeriesQuery, 'metricId'>,
    measure: string,
    extra?: string,
  ): Promise<SeriesRow[]> {
    const stored = await this.stored(q.orgId);
    const source = featureSource(this.table(), q.orgId, stored?.features, rangeMonths(q.start, q.end));
    const ctx = {
      dialect: athenaDialect,
      params: athenaParams(),
      catalog: { dimensions: source.dimensions },
    };
    const compiled = seriesSql(
      q,
      measure,
      `${source.sql} AS src`,
      ctx,
      extra ? (c) => `${athenaDialect.col('ConsumedUnit')} = ${c.params.add(extra)}` : undefined,
    );
    const rows = await this.runner.run(compiled.sql, compiled.params).catch((e: unknown) => {
      throw missingRateOf(e);
    });
    return toSeriesRows(rows, compiled.groupBy);
  }

  costSeries(q: CostSeriesQuery): Promise<SeriesRow[]> {
    return this.series(q, metricSql(q.metricId, athenaDialect));
  }

  /** One statement per metric (Athena runs them side by side; each scans only its months). */
  costSeriesMany(
    q: Omit<CostSeriesQuery, 'metricId' | 'groupBy'>,
    metricIds: MetricId[],
  ): Promise<SeriesRow[][]> {
    return Promise.all(metricIds.map((metricId) => this.costSeries({ ...q, metricId, groupBy: null })));
  }

  usageSeries(q: UsageSeriesQuery): Promise<SeriesRow[]> {
    return this.series(q, athenaDialect.col('ConsumedQuantity'), q.consumedUnit);
  }

  async catalog(orgId: string): Promise<Catalog | undefined> {
    const stored = await this.stored(orgId);
    if (!stored) return undefined;
    const { features: _features, ...catalog } = stored;
    return catalog;
  }

  /** Kept in the table beside the catalog, given anew around every write of the org's objects. */
  dataVersion(orgId: string): Promise<string | undefined> {
    return readDataVersion(orgId);
  }

  /** The base table through the org's derived table, pruned to the range's billing months. */
  async commitmentFacts(q: CommitmentFactsQuery): Promise<CommitmentFact[]> {
    const ctx = { dialect: athenaDialect, params: athenaParams() };
    const source = `${featureSource(this.table(), q.orgId, undefined, rangeMonths(q.start, q.end)).sql} AS src`;
    const compiled = commitmentFactsSql(q, source, ctx);
    const rows = await this.runner.run(compiled.sql, compiled.params).catch((e: unknown) => {
      throw missingRateOf(e);
    });
    return toCommitmentFacts(rows, q.groupBy);
  }

  async commitmentTerms(orgId: string, range?: { start: string; end: string }): Promise<CommitmentTerms[]> {
    const ctx = { dialect: athenaDialect, params: athenaParams() };
    const months = range ? rangeMonths(range.start, range.end) : undefined;
    const source = `${featureSource(this.table(), orgId, undefined, months).sql} AS src`;
    const compiled = commitmentTermsSql(orgId, range, source, ctx);
    return toCommitmentTerms(await this.runner.run(compiled.sql, compiled.params));
  }
}
