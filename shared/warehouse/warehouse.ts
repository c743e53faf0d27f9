import { config } from '../config';
import type { WarehousePort } from './port';
import type { CostSeriesQuery, SeriesRow, UsageSeriesQuery } from './query-model';

/**
 * The configured warehouse adapter (`WAREHOUSE=duckdb|athena`). Adapters are loaded on first use
 * so a function that never touches the warehouse never loads DuckDB's native module.
 */
let adapter: Promise<WarehousePort> | undefined;
let adapterKind: string | undefined;

export function getWarehouse(): Promise<WarehousePort> {
  const kind = config().warehouse;
  if (!adapter || adapterKind !== kind) {
    adapterKind = kind;
    adapter =
      kind === 'athena'
        ? import('./athena/adapter').then((m) => new m.AthenaWarehouse())
        : import('./duckdb/adapter').then((m) => new m.DuckDbWarehouse());
  }
  return adapter;
}

/** For tests that swap the adapter. */
export function setWarehouse(port: WarehousePort | undefined): void {
  adapter = port ? Promise.resolve(port) : undefined;
  adapterKind = port ? config().warehouse : undefined;
}

/**
 * Daily/weekly/monthly cost of an organisation, for alerts and reports: rows of
 * `{period, group, value}`. Resolve a date preset first with `resolvePreset` (./presets).
 */
export async function costSeries(q: CostSeriesQuery): Promise<SeriesRow[]> {
  return (await getWarehouse()).costSeries(q);
}

/** ConsumedQuantity of one consumed unit (a usage metric id), same model as costSeries. */
export async function usageSeries(q: UsageSeriesQuery): Promise<SeriesRow[]> {
  return (await getWarehouse()).usageSeries(q);
}
