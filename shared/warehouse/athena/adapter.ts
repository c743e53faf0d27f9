import type { IngestResult, UsageMetric, WarehousePort } from '../port';
import type { Catalog, CostSeriesQuery, SeriesRow, UsageSeriesQuery } from '../query-model';

/** Athena over the curated Parquet files (filled in by the Athena increment). */
export class AthenaWarehouse implements WarehousePort {
  readonly kind = 'athena' as const;
  ingestFile(_input: { orgId: string; path: string; sourceName: string }): Promise<IngestResult> {
    return Promise.reject(new Error('Athena adapter not configured'));
  }
  billingMonths(_orgId: string): Promise<string[]> {
    return Promise.reject(new Error('Athena adapter not configured'));
  }
  usageMetrics(_orgId: string): Promise<UsageMetric[]> {
    return Promise.reject(new Error('Athena adapter not configured'));
  }
  costSeries(_q: CostSeriesQuery): Promise<SeriesRow[]> {
    return Promise.reject(new Error('Athena adapter not configured'));
  }
  usageSeries(_q: UsageSeriesQuery): Promise<SeriesRow[]> {
    return Promise.reject(new Error('Athena adapter not configured'));
  }
  catalog(_orgId: string): Promise<Catalog | undefined> {
    return Promise.reject(new Error('Athena adapter not configured'));
  }
}
