import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { ParserRuleContext } from 'antlr4ng';
import { mockClient } from 'aws-sdk-client-mock';
import { type AthenaRunner, athenaRunner } from '../../shared/warehouse/athena/client';
import type { AthenaTable } from '../../shared/warehouse/athena/sql';
import { resetObjectStore } from '../../shared/warehouse/object-store';
import { quoteIdent, quoteLiteral } from '../../shared/warehouse/sql/quote';
import { applyEdits, assertTrino, type Edit, emulatorNodes, span } from './trino';

/** A billing object of the table's partition layout (`curated/org_id=<org>/billing_month=<month>/<file>.parquet`). */
const BILLING_OBJECT = /^curated\/org_id=[^/]+\/billing_month=[^/]+\/[^/]+\.parquet$/;

/**
 * An Athena stand-in for tests: the AWS SDK's Athena and S3 clients are mocked
 * (aws-sdk-client-mock), so the adapter runs unchanged down to its client. Every statement it
 * starts is recorded, must pass `assertTrino`, and is then executed on an in-memory DuckDB whose
 * `"<database>"."<table>"` is a view over the Parquet objects the adapter's own ingestion PUT
 * (hive partitions `org_id=…/billing_month=…`, as the Glue table reads them). S3 keeps the
 * objects in memory: ListObjectsV2 (two keys a page), PutObject (with IfMatch, S3's conditional write: 412 on a changed ETag) and
 * GetObject (NoSuchKey when absent).
 *
 * The dialect shim, all of it, applied to the Trino parse tree (never to raw text, so values are
 * never rewritten):
 * - each `?` becomes its ExecutionParameter, in text order (what Athena does);
 * - `element_at(map or array, k)` → `m[k]` (DuckDB's element_at answers a list; `[]` answers the
 *   value, or NULL when the key is absent or the index past the end, as Trino's element_at does);
 * - `date_format(ts, fmt)` → `strftime` with Trino's `%i`/`%s` spelt `%M`/`%S`;
 * - `json_format(json)` → the JSON text;
 * - `CROSS JOIN UNNEST(map) AS u (k, v)` → a LATERAL unnest of the map's keys and values, and
 *   `UNNEST(a1, …, an) AS u (c1, …, cn)` → a LATERAL unnest of the arrays side by side (both
 *   pad shorter arrays with NULL, as Trino does).
 * Anything else runs as written, so a DuckDB-only construct passes here only if Trino's grammar
 * and function list also accepted it. What this cannot show: Trino's type checking (DuckDB casts
 * implicitly where Trino refuses), Trino's text form of doubles (`1.5E0`), and Athena limits.
 */
export interface Recorded {
  sql: string;
  params: string[];
}

const SHIMS = [
  'CREATE MACRO t_element_at(m, k) AS m[k]',
  `CREATE MACRO t_date_format(ts, fmt) AS strftime(ts, replace(replace(fmt, '%i', '%M'), '%s', '%S'))`,
  'CREATE MACRO t_json_format(j) AS CAST(j AS VARCHAR)',
];
const RENAMED = new Set(['element_at', 'date_format', 'json_format']);

/** The DuckDB text of an Athena statement (see the shim above). */
export function toDuckDb(sql: string, params: string[]): string {
  const tree = assertTrino(sql);
  const nodes = emulatorNodes(tree);
  if (nodes.parameters.length !== params.length)
    throw new Error(`${nodes.parameters.length} parameters in the text, ${params.length} given`);
  const edits: Edit[] = [
    ...nodes.parameters.map((p, i) => ({ ...span(p), text: params[i] as string })),
    ...nodes.functions
      .map((f) => f.functionName())
      .filter((n) => RENAMED.has(n.getText().toLowerCase()))
      .map((n) => ({ ...span(n), text: `t_${n.getText().toLowerCase()}` })),
  ];
  for (const { unnest, alias } of nodes.unnests) {
    const aliases = alias?.columnAliases()?.identifier() ?? [];
    const name = alias?.identifier();
    if (!alias || !name || !aliases.length) throw new Error('UNNEST without a table and column alias');
    const whole = span(alias);
    const inner = (e: ParserRuleContext) => {
      const s = span(e);
      const nested = edits.filter((x) => x.start >= s.start && x.end <= s.end);
      return applyEdits(
        sql.slice(s.start, s.end),
        nested.map((x) => ({ ...x, start: x.start - s.start, end: x.end - s.start })),
      );
    };
    const exprs = unnest.expression().map(inner);
    const cols = aliases.map((a) => a.getText());
    let select: string;
    if (exprs.length === 1 && cols.length === 2)
      select = `unnest(map_keys(${exprs[0]})) AS ${cols[0]}, unnest(map_values(${exprs[0]})) AS ${cols[1]}`;
    else if (exprs.length === cols.length)
      select = exprs.map((e, i) => `unnest(${e}) AS ${cols[i]}`).join(', ');
    else throw new Error(`UNNEST of ${exprs.length} expressions into ${cols.length} columns`);
    for (let i = edits.length - 1; i >= 0; i--) {
      const x = edits[i] as Edit;
      if (x.start >= whole.start && x.end <= whole.end) edits.splice(i, 1);
    }
    edits.push({ ...whole, text: `LATERAL (SELECT ${select}) AS ${name.getText()}` });
  }
  return applyEdits(sql, edits);
}

/** A query's columns (name, type) and rows as Athena's GetQueryResults answers them: a header row, then the data. */
export function athenaResultSet(r: { columns: [string, string][]; rows: (string | null)[][] }) {
  return {
    ResultSetMetadata: { ColumnInfo: r.columns.map(([Name, Type]) => ({ Name, Type })) },
    Rows: [
      { Data: r.columns.map(([name]) => ({ VarCharValue: name })) },
      ...r.rows.map((row) => ({ Data: row.map((v) => (v === null ? {} : { VarCharValue: v })) })),
    ],
  };
}

/** S3's ETag of a single-part object: the quoted MD5 of its body. */
function etag(body: Uint8Array): string {
  return `"${createHash('md5').update(body).digest('hex')}"`;
}

function athenaType(duck: string): string {
  if (/^(DOUBLE|FLOAT)$/.test(duck)) return 'double';
  if (/^(U?BIGINT|U?INTEGER|U?SMALLINT|U?TINYINT|U?HUGEINT)$/.test(duck)) return 'bigint';
  if (duck.startsWith('DECIMAL')) return 'decimal';
  if (duck === 'BOOLEAN') return 'boolean';
  return 'varchar';
}

export class AthenaEmulator {
  readonly statements: Recorded[] = [];
  readonly objects = new Map<string, Uint8Array>();
  private readonly athena = mockClient(AthenaClient);
  private readonly s3 = mockClient(S3Client);
  private readonly dir = mkdtempSync(join(tmpdir(), 'athena-emulator-'));
  private readonly results = new Map<string, { columns: [string, string][]; rows: string[][] } | Error>();

  private constructor(
    readonly table: AthenaTable,
    private readonly conn: DuckDBConnection,
  ) {
    resetObjectStore();
    this.s3.on(PutObjectCommand).callsFake((input: { Key: string; Body: Uint8Array; IfMatch?: string }) => {
      const current = this.objects.get(input.Key);
      // S3's conditional write: IfMatch must name the object's current ETag, else 412.
      if (input.IfMatch !== undefined && (!current || etag(current) !== input.IfMatch))
        throw Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
          name: 'PreconditionFailed',
          $metadata: { httpStatusCode: 412 },
        });
      this.setObject(input.Key, input.Body);
      return { ETag: etag(input.Body) };
    });
    this.s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
      const body = this.objects.get(input.Key);
      if (!body)
        throw Object.assign(new Error('The specified key does not exist.'), {
          name: 'NoSuchKey',
          $metadata: { httpStatusCode: 404 },
        });
      return { Body: Readable.from([Buffer.from(body)]), ETag: etag(body) };
    });
    // ListObjectsV2 over the objects kept, in key order, two keys a page (so paging is driven too).
    this.s3.on(ListObjectsV2Command).callsFake((input: { Prefix?: string; ContinuationToken?: string }) => {
      const keys = [...this.objects.keys()].filter((k) => k.startsWith(input.Prefix ?? '')).sort();
      const from = input.ContinuationToken ? Number(input.ContinuationToken) : 0;
      const page = keys.slice(from, from + 2);
      const more = from + 2 < keys.length;
      return {
        Contents: page.map((Key) => ({ Key })),
        IsTruncated: more,
        ...(more ? { NextContinuationToken: String(from + 2) } : {}),
      };
    });
    this.athena
      .on(StartQueryExecutionCommand)
      .callsFake(async (input: { QueryString: string; ExecutionParameters?: string[] }) => {
        const id = `q${this.statements.length + 1}`;
        const recorded = { sql: input.QueryString, params: input.ExecutionParameters ?? [] };
        this.statements.push(recorded);
        // A statement Trino does not parse fails the caller at once, with the parser's messages.
        const duck = toDuckDb(recorded.sql, recorded.params);
        try {
          this.results.set(id, await this.execute(duck));
        } catch (error) {
          // DuckDB's errors come from the addon's realm, not the test's: `instanceof Error` is false there.
          this.results.set(
            id,
            error instanceof Error
              ? error
              : new Error(String((error as { message?: unknown }).message ?? error)),
          );
        }
        return { QueryExecutionId: id };
      });
    this.athena.on(GetQueryExecutionCommand).callsFake((input: { QueryExecutionId: string }) => {
      const r = this.results.get(input.QueryExecutionId);
      return {
        QueryExecution: {
          Status:
            r instanceof Error
              ? { State: 'FAILED', StateChangeReason: `emulator: ${r.message}` }
              : { State: 'SUCCEEDED' },
        },
      };
    });
    this.athena.on(GetQueryResultsCommand).callsFake((input: { QueryExecutionId: string }) => {
      const r = this.results.get(input.QueryExecutionId);
      if (!r || r instanceof Error) throw new Error('no results');
      return {
        ResultSet: athenaResultSet(r),
      };
    });
  }

  static async start(table: AthenaTable): Promise<AthenaEmulator> {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    for (const shim of SHIMS) await conn.run(shim);
    await conn.run(`CREATE SCHEMA ${quoteIdent(table.database)}`);
    return new AthenaEmulator(table, conn);
  }

  runner(): AthenaRunner {
    return athenaRunner({
      client: new AthenaClient({ region: 'us-east-1' }),
      workgroup: 'wg',
      database: this.table.database,
      pollMs: 1,
    });
  }

  /** Puts or (body undefined) removes an object directly, as another writer of the bucket would. */
  setObject(key: string, body: Uint8Array | undefined): void {
    const file = join(this.dir, key);
    if (body) {
      this.objects.set(key, body);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, body);
    } else {
      this.objects.delete(key);
      rmSync(file, { force: true });
    }
  }

  /** Statements recorded since `mark` (a previous `statements.length`). */
  since(mark: number): Recorded[] {
    return this.statements.slice(mark);
  }

  private async execute(sql: string): Promise<{ columns: [string, string][]; rows: string[][] }> {
    // The table is a view over the billing objects PUT so far (none yet: an empty table of no
    // rows), read as the table's partition projection reads them: only `org_id=…/billing_month=…/`
    // under `curated/` (other datasets, such as the contract commitments, sit beside them).
    const glob = join(this.dir, 'curated', 'org_id=*', 'billing_month=*', '*.parquet');
    const billing = [...this.objects.keys()].some((k) => BILLING_OBJECT.test(k));
    const view = `${quoteIdent(this.table.database)}.${quoteIdent(this.table.table)}`;
    await this.conn.run(
      billing
        ? `CREATE OR REPLACE VIEW ${view} AS SELECT * FROM read_parquet(${quoteLiteral(glob)}, hive_partitioning = true, hive_types_autocast = false)`
        : `CREATE OR REPLACE VIEW ${view} AS SELECT NULL AS org_id, NULL AS billing_month WHERE FALSE`,
    );
    const reader = await this.conn.runAndReadAll(sql);
    const types = reader.columnTypes().map((t) => athenaType(t.toString()));
    const columns = reader.columnNames().map((n, i) => [n, types[i] ?? 'varchar'] as [string, string]);
    const rows = reader.getRowsJS().map((row) => row.map((v) => (v === null ? null : String(v)) as string));
    return { columns, rows };
  }

  restore(): void {
    this.athena.restore();
    this.s3.restore();
    this.conn.closeSync();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
