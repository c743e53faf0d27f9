/**
 * The test run's only reporter: Jest's per-file progress and failure details (its DefaultReporter),
 * then ONE summary instead of Jest's own, so the two cannot disagree:
 *
 *   Failed:                                   (only when something failed)
 *     test/unit/foo.test.ts › group › name
 *     test/e2e/bar.test.ts (could not run: Cannot find module …)
 *   Suites: 120 passed, 3 failed (1 could not run), 123 total · 212.4 s
 *   Tests: 512 passed, 8 failed
 *
 * Counting: tests are counted as Jest counts them (numPassedTests, numFailedTests), and a suite that
 * could not run at all (syntax error, failing import: Jest's "runtime error" suites, which hold no
 * test results) adds ONE failure, so a broken file can never read as "0 failed". Skipped and todo
 * tests are neither passed nor failed; they are reported on a line of their own.
 *
 * `Tests: N passed, N failed` is the line CI reads. `npm test` (scripts/test.mjs) sets
 * TEST_SUMMARY_FILE: the summary is then written there and printed by the wrapper after Jest has
 * exited, so it is the last line of the run; a bare `npx jest` prints it here, at the end of the run.
 */
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');

const jestDir = require.resolve('jest');
const { DefaultReporter } = require(require.resolve('@jest/reporters', { paths: [jestDir] }));

/** The summary lines of an aggregated Jest result; exported for the wrapper's tests. */
function summaryLines(results, rootDir, elapsedMs) {
  const lines = [];
  const failures = [];
  for (const file of results.testResults) {
    const path = relative(rootDir, file.testFilePath);
    if (file.testExecError) {
      const first = String(file.testExecError.message ?? file.testExecError).split('\n')[0];
      failures.push(`  ${path} (could not run: ${first.slice(0, 160)})`);
      continue;
    }
    for (const t of file.testResults) {
      if (t.status === 'failed') failures.push(`  ${[path, ...t.ancestorTitles, t.title].join(' › ')}`);
    }
  }
  if (failures.length > 0) lines.push('', 'Failed:', ...failures);
  const couldNotRun = results.numRuntimeErrorTestSuites;
  const suites = [`${results.numPassedTestSuites} passed`];
  if (results.numFailedTestSuites > 0) {
    suites.push(
      `${results.numFailedTestSuites} failed${couldNotRun > 0 ? ` (${couldNotRun} could not run)` : ''}`,
    );
  }
  const seconds = (elapsedMs / 1000).toFixed(1);
  lines.push('', `Suites: ${suites.join(', ')}, ${results.numTotalTestSuites} total · ${seconds} s`);
  const skipped = results.numPendingTests + results.numTodoTests;
  if (skipped > 0) lines.push(`Skipped: ${skipped} test${skipped === 1 ? '' : 's'} (neither passed nor failed)`);
  if (results.wasInterrupted) lines.push('The run was interrupted.');
  lines.push(`Tests: ${results.numPassedTests} passed, ${results.numFailedTests + couldNotRun} failed`);
  return lines;
}

class SummaryReporter extends DefaultReporter {
  constructor(globalConfig, options) {
    super(globalConfig, options);
    this._rootDir = globalConfig.rootDir;
  }

  onRunComplete(contexts, results) {
    super.onRunComplete(contexts, results);
    const lines = summaryLines(results, this._rootDir, Date.now() - results.startTime);
    const file = process.env.TEST_SUMMARY_FILE;
    if (file) writeFileSync(file, `${lines.join('\n')}\n`);
    else process.stdout.write(`${lines.join('\n')}\n`);
  }
}

module.exports = SummaryReporter;
module.exports.summaryLines = summaryLines;
