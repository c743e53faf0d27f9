import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
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
