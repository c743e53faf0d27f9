import { type ChildProcess, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { writeFocusCsv } from '../infra/local/demo-data/generator';
import { ensureTable } from '../infra/local/setup-aws';
import { spawnLocalStack } from '../infra/local/spawn-stack';
import { resetConfig } from '../shared/config';
import { resetDb } from '../shared/db/client';
import { median, quantile } from '../shared/domain/common/stats';
import type { Budget } from '../shared/model/budgets';
import { DuckDbWarehouse } from '../shared/warehouse/duckdb/adapter';
import { query, resetDuckDb, withReadConnection } from '../shared/warehouse/duckdb/database';
import type { Session } from '../test/support/session';

export const ROOT = resolve(__dirname, '..');

export interface RunningStack {
  session: Session;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the local stack as `npm start` does (free port, throwaway state) for a benchmark. */
export async function startStack(extraArgs: string[] = []): Promise<RunningStack> {
  const stack = await spawnLocalStack<Session>({ prefix: 'cms-bench-', extraArgs });
  const { session } = stack;
  // Benchmarks run one after another in one process: point this process's cached config and
  // DynamoDB client at the new stack, never at a previous benchmark's stopped one.
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: session.endpoints.dynamodb,
    TABLE_NAME: session.tableName,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
  });
  resetConfig();
  resetDb();
  return { session, child: stack.child, stop: () => stack.stop() };
}

/** Percentile of a sorted-or-not list of numbers (nearest rank, as the forecast's accuracy figures). */
export function percentile(values: number[], p: number): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    p / 100,
  );
}

/**
 * Runs `fn` once, timing it on the monotonic clock (`ms`) and in CPU time of this process, user +
 * system over all its threads (DuckDB's included: `cpuMs`, steadier than wall time on a busy machine).
 */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; result: T }> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = await fn();
  const used = process.cpuUsage(cpu);
  return {
    ms: Number(process.hrtime.bigint() - started) / 1e6,
    cpuMs: (used.user + used.system) / 1000,
    result,
  };
}

export { median };

/** The result of `fn` and how long it took (`timed`). */
export type Timing<T> = Awaited<ReturnType<typeof timed<T>>>;

/**
 * `a` and `b` timed `runs` times each, alternating which goes first so that a busy moment of the
 * shared machine lands on both sides alike; their timings in run order.
 */
export async function alternately<A, B>(runs: number, a: () => Promise<A>, b: () => Promise<B>) {
  const ta: Timing<A>[] = [];
  const tb: Timing<B>[] = [];
  for (let i = 0; i < runs; i++) {
    const first = i % 2 === 0 ? await timed(a) : undefined;
    tb.push(await timed(b));
    ta.push(first ?? (await timed(a)));
  }
  return { a: ta, b: tb };
}

/** Points this process's warehouse at a new DuckDB file `<name>.duckdb` in `dir` (config and connections anew). */
export function useDuckDb(dir: string, name: string): void {
  process.env.DUCKDB_PATH = join(dir, `${name}.duckdb`);
  process.env.WAREHOUSE = 'duckdb';
  resetConfig();
  resetDuckDb();
}

/**
 * Points this process's repositories at table `table` of the DynamoDB Local at `endpoint` (config
 * and clients anew), creating the table.
 */
export async function useDynamoTable(endpoint: string, table: string): Promise<void> {
  Object.assign(process.env, { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: table });
  resetConfig();
  resetDb();
  await ensureTable(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    table,
  );
}

/** Generates the FOCUS file `focus.csv` in `dir` and ingests it for `orgId`; answers its row count. */
export async function ingestFocus(
  dir: string,
  orgId: string,
  opts: Parameters<typeof writeFocusCsv>[1],
): Promise<number> {
  const path = join(dir, 'focus.csv');
  const rows = await writeFocusCsv(path, opts);
  await new DuckDbWarehouse().ingestFile({ orgId, path, sourceName: 'focus.csv' });
  return rows;
}

/** How many FOCUS rows a warehouse bench generates: `WAREHOUSE_BENCH_ROWS`, else 1,000,000. */
export function benchRows(): number {
  return Number(process.env.WAREHOUSE_BENCH_ROWS ?? 1_000_000);
}

/** `resourcesPerProvider` for about `rows` generated rows over `days` days of two providers. */
export function resourcesFor(rows: number, days: number): number {
  return Math.ceil(rows / days / 2);
}

/** Rounds to `digits` decimals (1 unless told). */
export function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

const IMPORT_SCRIPT = [
  'const t = performance.now();',
  'await import(process.env.BENCH_IMPORT_URL);',
  'process.stdout.write(JSON.stringify({ ms: performance.now() - t }));',
].join('\n');

/** Milliseconds to import a bundle in a fresh node (the cold-start share of module loading). */
export function importMs(file: string): number {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TABLE_NAME: 'cost-management',
      BENCH_IMPORT_URL: pathToFileURL(file).href,
    },
  });
  if (child.status !== 0) throw new Error(`import of ${file} failed: ${child.stderr}`);
  return (JSON.parse(child.stdout) as { ms: number }).ms;
}

/**
 * A benchmark's warehouse: `writeFocusCsv` options written to `dir/focus.csv` and ingested for
 * `orgId` into a fresh DuckDB file `dir/<name>.duckdb` (the process's warehouse from then on).
 * Returns the number of rows written.
 */
export async function focusDuckDb(
  dir: string,
  name: string,
  orgId: string,
  options: Parameters<typeof writeFocusCsv>[1],
): Promise<number> {
  useDuckDb(dir, name);
  return ingestFocus(dir, orgId, options);
}

/** The month's biggest resources by billed cost (`r`: the id, `v`: the month's sum), biggest first. */
export async function topResources(
  orgId: string,
  month: string,
  n: number,
): Promise<{ r: string; v: number }[]> {
  const rows = await withReadConnection((conn) =>
    query(
      conn,
      `SELECT "ResourceId" AS r, sum("BilledCost") AS v FROM billing WHERE org_id = '${orgId}'
         AND "ChargePeriodStart" >= TIMESTAMP '${month}-01' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${n}`,
    ),
  );
  return (rows as { r: string; v: unknown }[]).map((x) => ({ r: x.r, v: Number(x.v) }));
}

/** A budget of one month grouped by resource, its lines as given, held in memory (no DynamoDB). */
export function benchBudget(
  orgId: string,
  id: string,
  month: string,
  lines: { value: string; amount: number }[],
  at: string,
): Budget {
  return {
    id,
    organizationId: orgId,
    name: `Bench ${id}`,
    description: '',
    currency: 'USD',
    metricId: 'cost',
    scopeId: null,
    whereClause: null,
    groupBy: 'resource_id',
    startMonth: month,
    lines: lines.map((l) => ({ value: l.value, owner: null, amounts: { [month]: l.amount } })),
    versionId: `bver_${id}`,
    versionNumber: 1,
    createdById: 'bench',
    createdAt: at,
    updatedById: 'bench',
    updatedAt: at,
    archivedAt: null,
  };
}
