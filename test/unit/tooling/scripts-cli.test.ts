import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
/** Without the variables that point a script at a table, and without npm's noise. */
const { DYNAMODB_ENDPOINT: _d, TABLE_NAME: _t, LOCAL_STATE_DIR: _s, ...env } = process.env;

function run(script: string, args: string[]) {
  const command = script.endsWith('.ts')
    ? [TSX, join(ROOT, 'scripts', script)]
    : [join(ROOT, 'scripts', script)];
  return spawnSync(process.execPath, [...command, ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('the scripts in scripts/', () => {
  const scripts = readdirSync(join(ROOT, 'scripts')).filter((f) => /\.(ts|mjs)$/.test(f));

  it('are all covered', () => {
    expect(scripts.length).toBeGreaterThanOrEqual(7);
  });

  it.each(scripts.filter((s) => s !== 'test.mjs'))(
    '%s answers --help with its usage and exit 0',
    (script) => {
      const result = run(script, ['--help']);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^usage: /);
      expect(result.status).toBe(0);
    },
  );

  it.each([
    ['keys.ts', ['list']],
    ['org.ts', ['list']],
    ['migrate-enrichments.ts', []],
    ['migrate-report-schedules.ts', []],
    ['migrate-upload-index.ts', []],
  ])('%s without a running stack says so in one line and exits 1', (script, args) => {
    const stateDir = mkdtempSync(join(tmpdir(), 'no-stack-'));
    try {
      const result = run(script, [...args, '--state-dir', stateDir]);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringContaining(`no running stack found (${join(stateDir, 'session.json')} is missing)`),
      ]);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('ingest refuses an unknown flag with its usage (exit 2)', () => {
    const result = run('ingest.ts', ['--bogus']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('unknown flag --bogus');
    expect(result.stderr).toContain('usage: npm run ingest');
  });
});
