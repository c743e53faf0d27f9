import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { session } from './session';

/** The repository's command-line scripts (`npm run token`, `npm run ingest`…) run against the test's stack. */
const ROOT = resolve(__dirname, '..', '..');

export function script(name: string, args: string[], timeout = 120_000) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', name), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout,
  });
}

/** `npm run org -- …` against the test's stack. */
export const orgCli = (...args: string[]) => script('org.ts', [...args, '--state-dir', session().stateDir]);

/**
 * `npm run ingest -- --org ORG FILE…` against the test's stack (several files: parts of one export):
 * its outcome. It waits up to 240 s for the ingestion and refresh, as a loaded CI machine may need.
 */
export const ingestCli = (org: string, ...files: string[]) =>
  script(
    'ingest.ts',
    ['--session', process.env.TEST_SESSION_FILE ?? '', '--org', org, '--timeout', '240', ...files],
    270_000,
  );

/** `ingestCli`, throwing with the command's output unless it succeeded. */
export function ingestOk(org: string, ...files: string[]): void {
  const out = ingestCli(org, ...files);
  if (out.status !== 0)
    throw new Error(`ingest failed (${out.status ?? out.signal}): ${out.stderr}${out.stdout}`);
}

/** `npm run token -- --user … --org … --role …`: the token alone on stdout. */
export function tokenCli(user: string, org: string, role: string): string {
  const out = script('token.ts', [
    '--user',
    user,
    '--org',
    org,
    '--role',
    role,
    '--state-dir',
    session().stateDir,
  ]);
  expect(out.status).toBe(0);
  return out.stdout.trim();
}
