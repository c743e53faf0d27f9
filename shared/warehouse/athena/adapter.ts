import type { FeatureModel, RefreshMode } from '../features';
import type { DimensionValues, IngestResult, UsageMetric, WarehousePort, WindowAggregates } from '../port';
import type { Catalog, CostSeriesQuery, SeriesRow, UsageSeriesQuery } from '../query-model';

const notYet = () => Promise.reject(new Error('Athena adapter not configured'));

/** Athena over the curated Parquet files (filled in by the Athena increment). */
export class AthenaWarehouse implements WarehousePort {
  readonly kind = 'athena' as const;
  ingestFile(_input: { orgId: string; path: string; sourceName: string }): Promise<IngestResult> {
    return notYet();
  }
  billingMonths(_orgId: string): Promise<string[]> {
    return notYet();
  }
  usageMetrics(_orgId: string): Promise<UsageMetric[]> {
    return notYet();
  }
  costSeries(_q: CostSeriesQuery): Promise<SeriesRow[]> {
    return notYet();
  }
  usageSeries(_q: UsageSeriesQuery): Promise<SeriesRow[]> {
    return notYet();
  }
  catalog(_orgId: string): Promise<Catalog | undefined> {
    return notYet();
  }
  refreshFeatures(_orgId: string, _model: FeatureModel, _mode: RefreshMode): Promise<Catalog> {
    return notYet();
  }
  candidateAggregates(_orgId: string, _months: string[], _top: number): Promise<WindowAggregates> {
    return notYet();
  }
  dimensionValues(
    _orgId: string,
    _months: string[],
    _dims: string[],
    _top: number,
  ): Promise<DimensionValues> {
    return notYet();
  }
}
