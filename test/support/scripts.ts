import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** Runs `scripts/<name>` (an `npm run …` command) with `args`, as a user would, and answers its outcome. */
export function script(name: string, args: string[], timeout = 120_000) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', name), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout,
  });
}

/** `npm run ingest -- --org ORG FILE…` against the test's stack (the session of the global setup). */
export const ingestCli = (org: string, ...files: string[]) =>
  script('ingest.ts', [
    '--session',
    process.env.TEST_SESSION_FILE ?? '',
    '--org',
    org,
    '--timeout',
    '90',
    ...files,
  ]);
