import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SEED_RATES_FILE } from '../../infra/local/warehouse-hook';
import { session } from './session';

const ROOT = resolve(__dirname, '..', '..');

/** `npm run <script> -- …` (scripts/<name>) against the test's stack: its exit status and output. */
export function runScript(name: string, args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', name), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout: 120_000,
  });
}

/** `npm run ingest -- --org ORG FILE` against the test's stack (waits for the refresh). */
export function ingestFor(org: string, file: string) {
  return runScript('ingest.ts', [
    '--session',
    process.env.TEST_SESSION_FILE ?? '',
    '--org',
    org,
    '--timeout',
    '90',
    file,
  ]);
}

/** USD per EUR by publication day, read by hand from the seed's synthetic rate file. */
export function seedUsdPerEur(): Map<string, number> {
  const out = new Map<string, number>();
  const xml = readFileSync(join(session().stateDir, SEED_RATES_FILE), 'utf8');
  for (const m of xml.matchAll(/<Cube time='([\d-]+)'>([\s\S]*?)<\/Cube>/g))
    out.set(m[1]!, Number(/currency='USD' rate='([\d.]+)'/.exec(m[2]!)![1]));
  return out;
}

/** The rate a charge day uses (docs/currency.md): the last one published on or before it. */
export function rateOn(rates: ReadonlyMap<string, number>, day: string): number {
  const published = [...rates.keys()].filter((p) => p <= day).sort();
  const rate = rates.get(published.at(-1) ?? '');
  if (rate === undefined) throw new Error(`no rate on or before ${day}`);
  return rate;
}
