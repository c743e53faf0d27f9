import { type ChildProcess, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnLocalStack } from '../infra/local/spawn-stack';
import { resetConfig } from '../shared/config';
import { resetDb } from '../shared/db/client';
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

/** Percentile of a sorted-or-not list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
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

/** The median (the mean of the two middle values for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
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
