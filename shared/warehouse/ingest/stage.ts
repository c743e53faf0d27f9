import type { DuckDBConnection } from '@duckdb/node-api';
import type { FocusVersion } from '../../model/uploads';
import { query } from '../duckdb/database';
import { FOCUS_1_3_COLUMNS } from '../focus-columns';
import { IngestRejected } from './errors';
import type { BillingFormat } from './native';
import {
  describeError,
  ingestionMarker,
  locateFirstBadRow,
  MalformedFileError,
  type OpenedFile,
  openBillingFile,
} from './normalise';

/**
 * Staging of an upload: the file read (./normalise.ts) into a temporary table in the billing
 * schema, in file order, which the conformance check reads and the adapters then copy.
 */
export interface StagedFile {
  /** The temporary table holding the file's rows in the billing schema (plus a `__bad` column), in file order. */
  table: string;
  rows: number;
  months: string[];
  /** The `ingested_at` of its rows. */
  marker: string;
  /** The FOCUS columns the file has (for a native export: those its conversion gives). */
  present: Set<string>;
  format: BillingFormat;
  /** The FOCUS version whose requirements apply: 1.3 for a FOCUS file with a column 1.3 introduced. */
  focusVersion: FocusVersion;
  /** Lines before the first data row: 1 for a CSV header, 0 otherwise. */
  headerLines: number;
}

let stagedCounter = 0;

/**
 * Stages `path` for organisation `orgId` into a temporary table of `conn` (the Athena adapter
 * writes Parquet from it). Throws MalformedFileError (nothing staged) when a required column is
 * missing, a cell cannot be read as its column's type, a row lacks its cost or charge period, or
 * the file is not a readable CSV or Parquet file.
 */
export async function stageBillingFile(
  conn: DuckDBConnection,
  path: string,
  orgId: string,
  sourceName: string,
): Promise<StagedFile> {
  const file = await openBillingFile(conn, path);
  const format: BillingFormat = file.native?.id ?? 'focus';
  try {
    return { ...(await stageOpened(conn, file, orgId, sourceName)), format };
  } catch (error) {
    // The rejection of a file whose format is known says which it is.
    if (error instanceof MalformedFileError) error.format = format;
    if (error instanceof IngestRejected) error.detail.format = format;
    throw error;
  }
}

async function stageOpened(
  conn: DuckDBConnection,
  file: OpenedFile,
  orgId: string,
  sourceName: string,
): Promise<Omit<StagedFile, 'format'>> {
  const path = file.path;
  const table = `staged_${++stagedCounter}`;
  const marker = ingestionMarker();
  try {
    await query(conn, `CREATE OR REPLACE TEMP TABLE ${table} AS ${file.built.sql(await file.from('$3'))}`, [
      orgId,
      sourceName,
      path,
      marker,
    ]);
  } catch (error) {
    throw new MalformedFileError(`The file could not be read: ${describeError(error, path)}`);
  }
  const [stats] = await query(
    conn,
    `SELECT count(*)::INT AS n, count(__bad)::INT AS bad, list(DISTINCT billing_month ORDER BY billing_month) AS months FROM ${table}`,
  );
  if (!stats || Number(stats.n) === 0) {
    await conn.run(`DROP TABLE IF EXISTS ${table}`);
    throw new MalformedFileError('The file has no data rows');
  }
  if (Number(stats.bad) > 0) {
    await conn.run(`DROP TABLE IF EXISTS ${table}`);
    throw await locateFirstBadRow(conn, await file.from('$1'), file.built, file.mapping, path);
  }
  const present = new Set([...file.mapping.focus.keys()].filter((c) => !file.mapping.derived.has(c)));
  return {
    table,
    rows: Number(stats.n),
    months: (stats.months as string[]) ?? [],
    marker,
    present,
    focusVersion: !file.native && FOCUS_1_3_COLUMNS.some((c) => present.has(c)) ? '1.3' : '1.2',
    headerLines: file.format.startsWith('csv') ? 1 : 0,
  };
}
