import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
  const stateDir = mkdtempSync(join(tmpdir(), 'cms-bench-'));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'infra/local/start.ts'),
      '--fresh',
      '--port',
      '0',
      '--state-dir',
      stateDir,
      '--no-ticker',
      '--exit-with-stdin',
      '--quiet',
      ...extraArgs,
    ],
    { cwd: ROOT, stdio: ['pipe', 'inherit', 'inherit'], env: { ...process.env, LOG_LEVEL: 'silent' } },
  );
  const file = join(stateDir, 'session.json');
  const deadline = Date.now() + 120_000;
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`local stack exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('local stack did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const session = JSON.parse(readFileSync(file, 'utf8')) as Session;
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
  return {
    session,
    child,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.once('exit', () => res());
        child.stdin?.end();
        child.kill('SIGTERM');
      }),
  };
}

/** Percentile of a sorted-or-not list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}
