import type { DuckDBConnection } from '@duckdb/node-api';
import { query } from '../duckdb/database';
import {
  CONTRACT_COMMITMENT_COLUMN_TYPES,
  CONTRACT_COMMITMENT_COLUMNS,
  type ContractCommitmentColumn,
} from '../focus-columns';
import { quoteIdent, quoteLiteral } from '../sql/quote';
import { describeError, ingestionMarker, MalformedFileError, textReader, timestamp } from './normalise';
import { sniffFormat } from './sniff';

/**
 * FOCUS 1.3's Contract Commitment dataset as an upload of its own: a file whose header has
 * ContractCommitmentId and ContractId and no BilledCost (a Cost and Usage file always has
 * BilledCost). Its rows are read into a temporary table in the contract commitments schema
 * (focus-columns.ts, CONTRACT_COMMITMENT_TABLE_COLUMNS), in file order, for the conformance check
 * (conformance/contract-commitment.ts) and the adapter, which keeps them.
 */
export interface StagedCommitments {
  table: string;
  rows: number;
  /** The dataset's columns the file has. */
  present: Set<string>;
  marker: string;
  /** The contracts the file describes: an upload replaces the organisation's rows of these. */
  contracts: string[];
  headerLines: number;
}

let counter = 0;

/** The header of a file that is a Contract Commitment dataset; undefined for any other file. */
async function commitmentHeader(conn: DuckDBConnection, path: string): Promise<string[] | undefined> {
  const format = sniffFormat(path);
  if (format.startsWith('jsonl')) return undefined;
  let headers: string[];
  try {
    const described = await query(
      conn,
      `DESCRIBE SELECT * FROM ${await textReader(conn, path, format)('$1')}`,
      [path],
    );
    headers = described.map((d) => String(d.column_name));
  } catch {
    return undefined; // the billing reader says what is wrong with the file
  }
  const names = new Set(headers.map((h) => h.trim().toLowerCase()));
  return names.has('contractcommitmentid') && names.has('contractid') && !names.has('billedcost')
    ? headers
    : undefined;
}

/**
 * Stages `path` when it is a Contract Commitment dataset (undefined otherwise: a billing file).
 * Throws MalformedFileError (nothing staged) for a file without rows or with a number or a date
 * that cannot be read, naming its row and column.
 */
export async function stageContractCommitments(
  conn: DuckDBConnection,
  path: string,
  orgId: string,
  sourceName: string,
): Promise<StagedCommitments | undefined> {
  const headers = await commitmentHeader(conn, path);
  if (!headers) return undefined;
  const format = sniffFormat(path);
  const raw = new Map<ContractCommitmentColumn, string>();
  for (const h of headers) {
    const col = CONTRACT_COMMITMENT_COLUMNS.find((c) => c.toLowerCase() === h.trim().toLowerCase());
    if (col && !raw.has(col)) raw.set(col, quoteIdent(h));
  }
  const cell = (r: string) => `CASE WHEN trim(${r}) IN ('', 'NULL', 'null') THEN NULL ELSE ${r} END`;
  const typed = (col: ContractCommitmentColumn) => {
    const r = raw.get(col);
    const type = CONTRACT_COMMITMENT_COLUMN_TYPES[col];
    if (!r) return `NULL::${type === 'number' ? 'DOUBLE' : type === 'timestamp' ? 'TIMESTAMP' : 'VARCHAR'}`;
    if (type === 'number') return `TRY_CAST(${cell(r)} AS DOUBLE)`;
    if (type === 'timestamp') return timestamp(cell(r));
    return cell(r);
  };
  const parsed = CONTRACT_COMMITMENT_COLUMNS.filter(
    (c) => raw.has(c) && CONTRACT_COMMITMENT_COLUMN_TYPES[c] !== 'string',
  );
  const bad = parsed.length
    ? `CASE ${parsed.map((c) => `WHEN ${typed(c)} IS NULL AND ${cell(raw.get(c) as string)} IS NOT NULL THEN ${quoteLiteral(c)}`).join(' ')} END`
    : 'NULL::VARCHAR';
  const table = `staged_cc_${++counter}`;
  const marker = ingestionMarker();
  try {
    await query(
      conn,
      `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT $1::VARCHAR AS org_id, ${CONTRACT_COMMITMENT_COLUMNS.map(
        (c) => `${typed(c)} AS ${quoteIdent(c)}`,
      ).join(', ')}, $2::VARCHAR AS source_file, CAST($4 AS TIMESTAMP) AS ingested_at, ${bad} AS __bad
       FROM ${await textReader(conn, path, format)('$3')}`,
      [orgId, sourceName, path, marker],
    );
  } catch (error) {
    throw new MalformedFileError(`The file could not be read: ${describeError(error, path)}`);
  }
  const [first] = await query(
    conn,
    `SELECT (rowid + 1)::INT AS row, __bad AS col FROM ${table} WHERE __bad IS NOT NULL ORDER BY rowid LIMIT 1`,
  );
  const [stats] = await query(
    conn,
    `SELECT count(*)::INT AS n, list(DISTINCT "ContractId" ORDER BY "ContractId") FILTER (WHERE "ContractId" IS NOT NULL) AS contracts FROM ${table}`,
  );
  if (first || !Number(stats?.n)) {
    await conn.run(`DROP TABLE IF EXISTS ${table}`);
    if (!first) throw new MalformedFileError('The file has no data rows');
    const row = Number(first.row);
    const column = String(first.col);
    const type = CONTRACT_COMMITMENT_COLUMN_TYPES[column as ContractCommitmentColumn];
    const line = row + (format.startsWith('csv') ? 1 : 0);
    throw new MalformedFileError(
      `Row ${row} (line ${line}), column ${column}: the value is not ${type === 'number' ? 'a number' : 'a date-time'}`,
      row,
      column,
    );
  }
  await conn.run(`ALTER TABLE ${table} DROP COLUMN __bad`);
  return {
    table,
    rows: Number(stats?.n),
    present: new Set(raw.keys()),
    marker,
    contracts: (stats?.contracts as string[] | null) ?? [],
    headerLines: format.startsWith('csv') ? 1 : 0,
  };
}
