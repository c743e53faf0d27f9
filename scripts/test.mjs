#!/usr/bin/env node
/**
 * `npm test [-- <jest args>]`: runs Jest with the arguments given (`npm test -- test/unit`,
 * `npm test -- -t 'publish'`), then prints the run's one summary after Jest has exited, so that
 * `Tests: N passed, N failed` is the last line whatever Jest, the global teardown or its workers print
 * on the way out. The exit status is Jest's. How tests are counted: test/support/summary-reporter.js.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    [
      'usage: npm test [-- <jest options and path patterns>]',
      '  Runs every suite (unit, integration, infra, e2e; the local stack starts in global setup),',
      '  or those matching the patterns, and prints one summary last: `Tests: N passed, N failed`.',
      '  Jest options follow.',
      '',
      '',
    ].join('\n'),
  );
}

const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const dir = mkdtempSync(join(tmpdir(), 'jest-summary-'));
const summaryFile = join(dir, 'summary.txt');
const child = spawn(process.execPath, [jest, ...args], {
  stdio: 'inherit',
  env: { ...process.env, TEST_SUMMARY_FILE: summaryFile },
});
// Ctrl-C reaches Jest through the terminal's process group; wait for it to stop and report.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));

child.on('exit', (code, signal) => {
  let summary = '';
  try {
    summary = readFileSync(summaryFile, 'utf8');
  } catch {
    // Jest stopped before the end of a run (global setup failed, a signal) or ran none (--help, --listTests).
  }
  rmSync(dir, { recursive: true, force: true });
  const status = code ?? 1;
  if (summary) process.stdout.write(summary);
  else if (status !== 0) {
    process.stdout.write(
      `\nJest stopped before the end of the run (${signal ?? `exit ${status}`}).\nTests: 0 passed, 1 failed\n`,
    );
  }
  process.exit(status);
});
