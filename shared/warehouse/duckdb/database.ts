import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { config } from '../../config';
import { BILLING_COLUMNS, CONTRACT_COMMITMENT_TABLE_COLUMNS, type StoredType } from '../focus-columns';
import { quoteIdent } from '../sql/quote';

/**
 * The embedded warehouse: one DuckDB database per process (the file at `config().duckdbPath`, or
 * in memory). DuckDB allows one writing process per file, so locally the `npm start` process owns
 * it and everything else (the ingest CLI) goes through that process. Within the process, writes
 * are serialised by `withWriteLock` so an ingestion and a refresh never race on one table.
 */
const DUCK_TYPES: Record<StoredType, string> = {
  string: 'VARCHAR',
  number: 'DOUBLE',
  timestamp: 'TIMESTAMP',
  json: 'VARCHAR',
  tags: 'MAP(VARCHAR, VARCHAR)',
};

export const BILLING_TABLE = 'billing';
export const CATALOG_TABLE = 'warehouse_catalog';
/**
 * Rows an upload replaced, kept restorable (shared/warehouse/ingest/replacements.ts): the billing
 * columns plus the id of the upload that replaced them and when.
 */
export const REPLACED_TABLE = 'billing_replaced';

/** FOCUS 1.3's Contract Commitment dataset, per organisation (shared/warehouse/ingest/contract-commitments.ts). */
export const CONTRACT_COMMITMENT_TABLE = 'contract_commitments';

/** Each organisation's data version (`dataVersion`): a new random id whenever its rows change. */
export const DATA_VERSION_TABLE = 'data_versions';

export function contractCommitmentTableDdl(): string {
  const columns = CONTRACT_COMMITMENT_TABLE_COLUMNS.map((c) => `${quoteIdent(c.name)} ${DUCK_TYPES[c.type]}`);
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(CONTRACT_COMMITMENT_TABLE)} (\n  ${columns.join(',\n  ')}\n)`;
}

export function replacedTableDdl(): string {
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(REPLACED_TABLE)} (\n  ${billingColumnsDdl()},\n  replaced_by VARCHAR NOT NULL,\n  replaced_at TIMESTAMP NOT NULL\n)`;
}

/** A time as a DuckDB TIMESTAMP literal's text (UTC, no zone): `2026-01-02 03:04:05.678`. */
export function duckTimestamp(at: Date): string {
  return at.toISOString().replace('T', ' ').replace('Z', '');
}

const billingColumnsDdl = () =>
  BILLING_COLUMNS.map((c) => `${quoteIdent(c.name)} ${DUCK_TYPES[c.type]}`).join(',\n  ');

export function billingTableDdl(table = BILLING_TABLE): string {
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(table)} (\n  ${billingColumnsDdl()}\n)`;
}

/**
 * Adds the billing columns a table created by an older version lacks (the FOCUS 1.3 columns). They
 * are the last of BILLING_COLUMNS, so an added column lands where a new table has it and a staged
 * upload still copies into the table by position.
 */
export function billingColumnsMigration(table: string): string[] {
  return BILLING_COLUMNS.map(
    (c) =>
      `ALTER TABLE ${quoteIdent(table)} ADD COLUMN IF NOT EXISTS ${quoteIdent(c.name)} ${DUCK_TYPES[c.type]}`,
  );
}

let instance: Promise<DuckDBInstance> | undefined;
let instancePath: string | undefined;
let generation = 0;

/**
 * A number that changes whenever the data of this process's database may have changed: after each
 * write (`withWriteLock`: ingestion, refresh) and whenever another database is opened. Caches of
 * what only a write can change (an org's catalog, its latest charge day) are keyed by it. DuckDB
 * allows one writing process per file, and every write of this process goes through
 * `withWriteLock`, so no write can happen without it moving.
 */
export function dataGeneration(): number {
  return generation;
}

/**
 * `@duckdb/node-api` is loaded here, when the first connection is opened, and nowhere else at run
 * time (other modules import its types only). It is external to the Lambda bundles (a native
 * binding), so a static import would become a top-level `import` of every bundle that reaches
 * this module: loading the native addon at cold start (4× the import time of the floor) and
 * crashing at import where the package is not shipped (every function but `billing-ingest`).
 */
async function open(path: string): Promise<DuckDBInstance> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  // An in-memory database spills to `.tmp` under the working directory by default, which is
  // read-only in Lambda (/var/task); the billing-ingest worker stages uploads in one.
  const db = await DuckDBInstance.create(
    path,
    path === ':memory:' ? { temp_directory: join(tmpdir(), 'duckdb-spill') } : {},
  );
  const conn = await db.connect();
  try {
    await conn.run(billingTableDdl());
    await conn.run(replacedTableDdl());
    await conn.run(contractCommitmentTableDdl());
    for (const sql of [...billingColumnsMigration(BILLING_TABLE), ...billingColumnsMigration(REPLACED_TABLE)])
      await conn.run(sql);
    await conn.run(
      `CREATE TABLE IF NOT EXISTS ${CATALOG_TABLE} (org_id VARCHAR NOT NULL, catalog VARCHAR NOT NULL, refreshed_at TIMESTAMP NOT NULL)`,
    );
    await conn.run(
      `CREATE TABLE IF NOT EXISTS ${DATA_VERSION_TABLE} (org_id VARCHAR PRIMARY KEY, version VARCHAR NOT NULL, changed_at TIMESTAMP NOT NULL)`,
    );
  } finally {
    conn.closeSync();
  }
  return db;
}

/** The process's DuckDB database, opened (and its tables created) on first use. */
export function duckdb(): Promise<DuckDBInstance> {
  const path = config().duckdbPath;
  if (!instance || instancePath !== path) {
    generation++;
    instancePath = path;
    instance = open(path);
    instance.catch(() => {
      instance = undefined;
    });
  }
  return instance;
}

/** Runs `fn` on a fresh connection whose session time zone is UTC, and closes it afterwards. */
export async function withConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const conn = await (await duckdb()).connect();
  try {
    await conn.run("SET TimeZone = 'UTC'");
    return await fn(conn);
  } finally {
    conn.closeSync();
  }
}

/** Idle read connections kept per database (more are opened when more reads run at once). */
const IDLE_READERS = 4;
const idle = new WeakMap<DuckDBInstance, DuckDBConnection[]>();

/**
 * Runs a read-only `fn` on a connection of the process's pool (session time zone UTC): opening a
 * connection and setting it up costs about as much as a small query, on every request. Reads
 * never wait for a connection: one is opened when none is idle, and at most `IDLE_READERS` are
 * kept. `fn` must leave the connection as it found it (no transaction, no temp objects, no SET):
 * writers and anything stateful use `withConnection`.
 */
export async function withReadConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const db = await duckdb();
  let pool = idle.get(db);
  if (!pool) {
    pool = [];
    idle.set(db, pool);
  }
  let conn = pool.pop();
  if (!conn) {
    conn = await db.connect();
    await conn.run("SET TimeZone = 'UTC'");
  }
  let healthy = true;
  try {
    return await fn(conn);
  } catch (error) {
    // An interrupted or failed statement leaves nothing open on an auto-commit connection, but
    // a connection that saw an error is not worth the doubt: close it.
    healthy = false;
    throw error;
  } finally {
    if (healthy && instance && (await instance.catch(() => undefined)) === db && pool.length < IDLE_READERS)
      pool.push(conn);
    else conn.closeSync();
  }
}

let writeChain: Promise<unknown> = Promise.resolve();

/** Serialises writers within this process (ingestion, refresh); moves `dataGeneration` when each ends. */
export function withWriteLock<T>(fn: () => Promise<T>): Promise<T> {
  const write = async () => {
    try {
      return await fn();
    } finally {
      generation++;
    }
  };
  const run = writeChain.then(write, write);
  writeChain = run.catch(() => undefined);
  return run;
}

/** Runs `fn` inside BEGIN … COMMIT, rolling back on any error. */
export async function inTransaction<T>(conn: DuckDBConnection, fn: () => Promise<T>): Promise<T> {
  await conn.run('BEGIN TRANSACTION');
  try {
    const result = await fn();
    await conn.run('COMMIT');
    return result;
  } catch (error) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export type Row = Record<string, unknown>;

/** Rows as plain JSON values. BIGINT and HUGEINT come back as strings: cast in SQL where a number is wanted. */
export async function query(conn: DuckDBConnection, sql: string, params: DuckDBValue[] = []): Promise<Row[]> {
  const reader = await conn.runAndReadAll(sql, params);
  return reader.getRowObjectsJson() as Row[];
}

/**
 * Closes the process's database, its idle connections first, and forgets it (the next call opens
 * `config().duckdbPath` afresh). The instance holds a native handle (`DuckDBNapiRefReaper`) that
 * keeps the process alive while the instance is open: a test suite calls this at its end (Jest's
 * `test/support/close-duckdb.ts`). Only for when nothing else of the process is using it.
 */
export async function closeDuckDb(): Promise<void> {
  const opened = instance;
  resetDuckDb();
  const db = await opened?.catch(() => undefined);
  db?.closeSync();
}

/** For tests: forget the instance so the next call opens `config().duckdbPath` afresh. */
export function resetDuckDb(): void {
  generation++;
  void instance?.then(
    (db) => {
      for (const conn of idle.get(db)?.splice(0) ?? []) conn.closeSync();
    },
    () => undefined,
  );
  instance = undefined;
  instancePath = undefined;
}

/**
 * Gives the org's data a new version (a random id: two databases never share one), in the
 * transaction that changes its billing or commitment rows, so the version moves exactly when they
 * are committed.
 */
export async function bumpDataVersion(conn: DuckDBConnection, orgId: string): Promise<void> {
  await query(
    conn,
    `INSERT INTO ${DATA_VERSION_TABLE} VALUES ($1, $2, CAST($3 AS TIMESTAMP))
       ON CONFLICT (org_id) DO UPDATE SET version = excluded.version, changed_at = excluded.changed_at`,
    [orgId, randomUUID(), duckTimestamp(new Date())],
  );
}
