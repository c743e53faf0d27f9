import type { Catalog, CostSeriesQuery, SeriesRow, UsageSeriesQuery } from './query-model';

/**
 * The warehouse port. Two adapters implement it from the same query model: DuckDB (embedded, the
 * default and what tests run) and Athena over the Parquet files in S3. Everything here is scoped
 * to one organisation; no method can read another organisation's rows.
 */
export interface IngestResult {
  rows: number;
  /** Billing months the file held; each replaced that month's previous rows for the org. */
  months: string[];
}

export interface UsageMetric {
  consumed_unit: string;
  service_names: string[];
}

export interface WarehousePort {
  readonly kind: 'duckdb' | 'athena';
  /**
   * Ingests one FOCUS file (CSV, gzipped CSV or Parquet) already on local disk. Each billing
   * month in the file replaces the org's rows of that month atomically. A malformed file throws
   * MalformedFileError and changes nothing.
   */
  ingestFile(input: { orgId: string; path: string; sourceName: string }): Promise<IngestResult>;
  /** Billing months present for the org (`YYYY-MM`), newest first. */
  billingMonths(orgId: string): Promise<string[]>;
  /** Consumed units with the services that report them, from every ingested row of the org. */
  usageMetrics(orgId: string): Promise<UsageMetric[]>;
  /** A cost series (see the query model): rows of `{period, group, value}`. */
  costSeries(q: CostSeriesQuery): Promise<SeriesRow[]>;
  /** A usage series: ConsumedQuantity of one consumed unit, same model as costSeries. */
  usageSeries(q: UsageSeriesQuery): Promise<SeriesRow[]>;
  /** The computed dimensions of the org's last refresh, if any. */
  catalog(orgId: string): Promise<Catalog | undefined>;
}
