import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

export interface SpawnedStack<S> {
  child: ChildProcess;
  stateDir: string;
  session: S;
  /** SIGTERM (and stdin closed), SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `infra/local/start.ts` exactly as `npm start` does, in a child process on a free port
 * with a throwaway state folder, for the test run and the benchmarks. The child stops when our
 * stdin pipe closes, so a crashed parent never leaves DynamoDB Local running.
 */
export async function spawnLocalStack<S>(opts: {
  prefix: string;
  extraArgs?: string[];
}): Promise<SpawnedStack<S>> {
  const stateDir = mkdtempSync(join(tmpdir(), opts.prefix));
  const args = [
    '--fresh',
    '--port',
    '0',
    '--state-dir',
    stateDir,
    '--no-ticker',
    '--exit-with-stdin',
    '--quiet',
  ];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'infra/local/start.ts'), ...args, ...(opts.extraArgs ?? [])],
    {
      cwd: ROOT,
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    },
  );
  const stop = (graceMs = 10_000) =>
    new Promise<void>((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        res();
      });
      child.stdin?.end();
      child.kill('SIGTERM');
    });
  const file = join(stateDir, 'session.json');
  const deadline = Date.now() + 120_000;
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`local stack exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      // Stop it gracefully so it takes its emulators (DynamoDB Local's JVM) down with it.
      await stop();
      throw new Error('local stack did not start within 120 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, stateDir, session: JSON.parse(readFileSync(file, 'utf8')) as S, stop };
}
