import { config } from '../config';
import { AthenaQueries } from './athena/queries';
import { DuckDbQueries } from './duckdb/queries';
import type { WarehouseQueries } from './port';
import type { CostSeriesQuery, SeriesRow, UsageSeriesQuery } from './query-model';

/**
 * The warehouse as request-time code sees it (HTTP routes, alerts, reports): the queries only,
 * from the adapter `config().warehouse` names. Ingestion and the refresh live in the whole
 * adapters (`getWarehouse()` in ./warehouse.ts), which only workers and the local stack load.
 *
 * Both query adapters are imported statically. Every Lambda is bundled into one file, so a
 * dynamic `import()` of our own modules would not keep either out of a bundle (esbuild inlines
 * it), and it would cost tree-shaking: esbuild wraps a dynamically imported module and keeps
 * everything it imports (the whole DynamoDB and Athena clients: +90 KB). Importing either is
 * cheap: the Athena client is created when `AthenaQueries` is constructed, and DuckDB's native
 * module is loaded when the database is first opened (`duckdb/database.ts`), never at import.
 */
let queries: WarehouseQueries | undefined;
let override: WarehouseQueries | undefined;

export function getWarehouseQueries(): Promise<WarehouseQueries> {
  if (override) return Promise.resolve(override);
  const kind = config().warehouse;
  if (queries?.kind !== kind) queries = kind === 'athena' ? new AthenaQueries() : new DuckDbQueries();
  return Promise.resolve(queries);
}

/** For tests that swap the adapter (`setWarehouse` in ./warehouse.ts sets this too). */
export function setWarehouseQueries(port: WarehouseQueries | undefined): void {
  override = port;
}

/**
 * Daily/weekly/monthly cost of an organisation, for alerts and reports: rows of
 * `{period, group, value}`. Resolve a date preset first (the query domain's `resolvePreset`).
 */
export async function costSeries(q: CostSeriesQuery): Promise<SeriesRow[]> {
  return (await getWarehouseQueries()).costSeries(q);
}

/** ConsumedQuantity of one consumed unit (a usage metric id), same model as costSeries. */
export async function usageSeries(q: UsageSeriesQuery): Promise<SeriesRow[]> {
  return (await getWarehouseQueries()).usageSeries(q);
}
