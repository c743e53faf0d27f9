import type { ConformanceReport, SourceChange } from '../model/uploads';
import type { FeatureModel, RefreshMode } from '../model/view-features';
import type { MetricId } from './focus-columns';
import type { BillingFormat } from './ingest/native';
import type { CommitmentFact, CommitmentFactsQuery, CommitmentTerms } from './sql/commitments';
import type {
  BillingInfo,
  Catalog,
  CostSeriesQuery,
  CurrencyConversion,
  SeriesRow,
  UsageSeriesQuery,
} from './warehouse-query';

/**
 * The warehouse port. Two adapters implement it from the same query model: DuckDB (embedded, the
 * default and what tests run) and Athena over the Parquet files in S3. Everything here is scoped
 * to one organisation; no method can read another organisation's rows.
 */
export interface IngestResult {
  /** The format the file was detected as (docs/warehouse.md, "Upload records"). */
  format: BillingFormat;
  rows: number;
  /** Billing months the file held; each replaced that month's previous rows for the org. */
  months: string[];
  /** The source months that held rows before (absent when none did), with both versions' figures. */
  replaced?: SourceChange[];
  /** The FOCUS conformance of the converted rows (absent when the check was turned off). */
  conformance?: ConformanceReport;
}

export interface IngestInput {
  orgId: string;
  path: string;
  sourceName: string;
  /** The upload's id: the rows it replaces are kept under it, restorable (a random id when absent). */
  uploadId?: string;
  /** False: skip the conformance check (the benchmark's baseline). */
  conformance?: boolean;
}

export interface UsageMetric {
  consumed_unit: string;
  service_names: string[];
}

/**
 * Tag-key figures over a window of billing months (cost is BilledCost), for the candidates. With a
 * conversion every cost is in its target currency (each row at its charge day's factor; a missing
 * rate fails with `MissingRateError`), never billing currencies added 1:1.
 */
export interface WindowAggregates {
  /** Window months, oldest first, with their total cost. */
  months: { month: string; cost: number }[];
  /** Per tag key: cost of rows carrying it, distinct values, providers. */
  keys: { key: string; cost: number; values: number; providers: string[] }[];
  keyMonths: { key: string; month: string; cost: number }[];
  /** The costliest values of each key (at most `topValues` per key). */
  keyValues: { key: string; value: string; cost: number }[];
}

export interface DimensionValues {
  /** Total cost of the window (the denominator of every proportion). */
  total: number;
  /** The costliest values of each dimension (at most `topValues` each); rows without a value are not listed. */
  values: { dimension: string; value: string; cost: number }[];
  /** Dimensions that could not be resolved (left out). */
  skipped: string[];
}

/**
 * What request-time code reads (HTTP routes, alerts, reports): queries over the org's billing
 * rows and its last refresh. Kept apart from the maintenance side (ingestion, refresh) so that a
 * route's bundle reaches neither the CEL library nor the S3 and ingestion code (see ./queries.ts).
 */
export interface WarehouseQueries {
  readonly kind: 'duckdb' | 'athena';
  /** Billing months present for the org (`YYYY-MM`), newest first. */
  billingMonths(orgId: string): Promise<string[]>;
  /** Consumed units with the services that report them, from every ingested row of the org. */
  usageMetrics(orgId: string): Promise<UsageMetric[]>;
  /**
   * The latest charge day and the billing currencies of the org's rows in the billing months from
   * `sinceMonth` (`YYYY-MM`) on: what the query engine's `dataThrough` and `currency` read.
   */
  billingInfo(orgId: string, sinceMonth: string): Promise<BillingInfo>;
  /**
   * A cost series (see the query model): rows of `{period, group, value}`, in one statement with the
   * aggregation (and the top-N ranking) pushed down. The query engine (shared/domain/queries)
   * reads every cost and usage figure through this and `usageSeries`.
   */
  costSeries(q: CostSeriesQuery): Promise<SeriesRow[]>;
  /**
   * Several ungrouped cost series over the same rows that differ only in their metric, one list
   * per metric id in order: DuckDB sums them all in one scan; Athena runs `costSeries` for each.
   */
  costSeriesMany(
    q: Omit<CostSeriesQuery, 'metricId' | 'groupBy'>,
    metricIds: MetricId[],
  ): Promise<SeriesRow[][]>;
  /** A usage series: ConsumedQuantity of one consumed unit, same model as costSeries. */
  usageSeries(q: UsageSeriesQuery): Promise<SeriesRow[]>;
  /** The computed dimensions of the org's last refresh, if any. */
  catalog(orgId: string): Promise<Catalog | undefined>;
  /**
   * The version of the org's rows as they are now: another value after any change of them
   * (ingestion, restore), the same until then, in every process. `undefined` where the adapter
   * keeps none: a caller that needs to know then reads the data itself (docs/queries.md, "Forecast").
   */
  dataVersion(orgId: string): Promise<string | undefined>;
  /**
   * Commitment-discount facts (./sql/commitments.ts): per bucket, commitment and group, what each
   * commitment used, left unused, charged as a fee, covered at on-demand prices, and the eligible
   * usage no commitment covered; in one statement, converted per charge day like the cost series.
   */
  commitmentFacts(q: CommitmentFactsQuery): Promise<CommitmentFact[]>;
  /** Every commitment of the org with lines in the range (all time without one), with its terms. */
  commitmentTerms(orgId: string, range?: { start: string; end: string }): Promise<CommitmentTerms[]>;
}

/** The whole warehouse: the queries plus ingestion and the refresh (workers and the local stack). */
export interface WarehousePort extends WarehouseQueries {
  /**
   * Ingests one FOCUS file (CSV, gzipped CSV or Parquet) already on local disk. Each billing
   * month in the file replaces the org's rows of that month atomically. A malformed file throws
   * MalformedFileError and changes nothing.
   */
  ingestFile(input: IngestInput): Promise<IngestResult>;
  /**
   * Puts back the versions upload `uploadId` replaced, for the source months it replaced (those
   * of `sources`, from its record); what they hold now is kept under `restoreId` in turn.
   * Idempotent. Answers the source months put back.
   */
  restoreReplaced(
    orgId: string,
    uploadId: string,
    restoreId: string,
    sources: SourceChange[],
  ): Promise<SourceChange[]>;
  /**
   * Builds the org's enriched view. `full` re-materialises labels and enrichments from the
   * billing rows; `light` only replaces the virtual dimensions (falling back to full when there
   * is nothing to build on). Atomic: readers see the previous view or the new one.
   */
  refreshFeatures(orgId: string, model: FeatureModel, mode: RefreshMode): Promise<Catalog>;
  /** Tag-key figures over the given billing months, converted by `conversion` when given. */
  candidateAggregates(
    orgId: string,
    months: string[],
    topValues: number,
    conversion?: CurrencyConversion,
  ): Promise<WindowAggregates>;
  /**
   * Values of the given dimensions over the given billing months, from the enriched view; costs
   * converted by `conversion` when given.
   */
  dimensionValues(
    orgId: string,
    months: string[],
    dimensions: string[],
    topValues: number,
    conversion?: CurrencyConversion,
  ): Promise<DimensionValues>;
}
