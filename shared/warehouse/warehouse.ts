import { config } from '../config';
import { AthenaWarehouse } from './athena/adapter';
import { DuckDbWarehouse } from './duckdb/adapter';
import type { WarehousePort } from './port';
import { setWarehouseQueries } from './queries';

/**
 * The whole configured warehouse adapter (`WAREHOUSE=duckdb|athena`): queries, ingestion and the
 * refresh, for the workers and the local stack. Request-time code uses `getWarehouseQueries()`
 * (./queries.ts), which reaches the query side only and imports its adapter lazily. Both whole
 * adapters are imported statically here: only the workers that ingest or refresh load this module,
 * and they need the adapter on every message. DuckDB's native module is loaded when the database
 * is first opened, never at import (./duckdb/database.ts), so in Athena mode only ingestion (which
 * stages files in an in-memory DuckDB) loads it.
 */
let adapter: Promise<WarehousePort> | undefined;
let adapterKind: string | undefined;

export function getWarehouse(): Promise<WarehousePort> {
  const kind = config().warehouse;
  if (!adapter || adapterKind !== kind) {
    adapterKind = kind;
    adapter = Promise.resolve(kind === 'athena' ? new AthenaWarehouse() : new DuckDbWarehouse());
  }
  return adapter;
}

/** For tests that swap the adapter: both `getWarehouse()` and `getWarehouseQueries()` answer it. */
export function setWarehouse(port: WarehousePort | undefined): void {
  adapter = port ? Promise.resolve(port) : undefined;
  adapterKind = port ? config().warehouse : undefined;
  setWarehouseQueries(port);
}
