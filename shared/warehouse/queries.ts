import { config } from '../config';
import type { WarehouseQueries } from './port';
import type { CostSeriesQuery, SeriesRow, UsageSeriesQuery } from './warehouse-query';

/**
 * The warehouse as request-time code sees it (HTTP routes, alerts, reports): the queries only,
 * from the adapter `config().warehouse` names. Ingestion and the refresh live in the whole
 * adapters (`getWarehouse()` in ./warehouse.ts), which only workers and the local stack load.
 *
 * The adapter is imported when first asked for, and only the one the deployment names: HTTP
 * functions are built with code splitting (infra/bundling.ts `SPLIT_FOLDERS`), so the Athena
 * client and the SQL compiler are a chunk that a route's cold start does not parse, a request that
 * is refused before it queries never loads, and a local run never loads at all (and DuckDB's
 * native module is loaded when the database is first opened, `duckdb/database.ts`).
 */
let queries: WarehouseQueries | undefined;
let override: WarehouseQueries | undefined;

export async function getWarehouseQueries(): Promise<WarehouseQueries> {
  if (override) return override;
  const kind = config().warehouse;
  if (queries?.kind !== kind) {
    queries =
      kind === 'athena'
        ? new (await import('./athena/queries')).AthenaQueries()
        : new (await import('./duckdb/queries')).DuckDbQueries();
  }
  return queries;
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
