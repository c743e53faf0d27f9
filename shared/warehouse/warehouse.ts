import { config } from '../config';
import type { WarehousePort } from './port';
import { setWarehouseQueries } from './queries';

/**
 * The whole configured warehouse adapter (`WAREHOUSE=duckdb|athena`): queries, ingestion and the
 * refresh, for the workers and the local stack. Request-time code uses `getWarehouseQueries()`
 * (./queries.ts), which reaches the query side only. Only the configured adapter is loaded, on the
 * first call (a dynamic import, its own chunk): an Athena deployment never loads the DuckDB
 * adapter's code and a DuckDB one never loads the Athena client, and a worker's cold start loads
 * neither before its first message. DuckDB's native module is loaded when the database is first
 * opened (./duckdb/database.ts), so in Athena mode only ingestion (which stages files in an
 * in-memory DuckDB) loads it.
 */
let adapter: Promise<WarehousePort> | undefined;
let adapterKind: string | undefined;

export function getWarehouse(): Promise<WarehousePort> {
  const kind = config().warehouse;
  if (!adapter || adapterKind !== kind) {
    adapterKind = kind;
    const loading = loadAdapter(kind);
    adapter = loading;
    // A failed load is not cached: the next call tries again.
    loading.catch(() => {
      if (adapter === loading) adapter = undefined;
    });
  }
  return adapter;
}

async function loadAdapter(kind: string): Promise<WarehousePort> {
  if (kind === 'athena') return new (await import('./athena/adapter')).AthenaWarehouse();
  return new (await import('./duckdb/adapter')).DuckDbWarehouse();
}

/** For tests that swap the adapter: both `getWarehouse()` and `getWarehouseQueries()` answer it. */
export function setWarehouse(port: WarehousePort | undefined): void {
  adapter = port ? Promise.resolve(port) : undefined;
  adapterKind = port ? config().warehouse : undefined;
  setWarehouseQueries(port);
}
