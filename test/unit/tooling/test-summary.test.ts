// The reporter is plain CommonJS (Jest loads it untransformed); its pure part is tested here.
const { summaryLines } = require('../../support/summary-reporter.js') as {
  summaryLines: (results: unknown, rootDir: string, elapsedMs: number) => string[];
};

type Status = 'passed' | 'failed' | 'pending';

function file(path: string, statuses: Status[], execError?: string) {
  return {
    testFilePath: `/repo/${path}`,
    testExecError: execError ? { message: `${execError}\n    at somewhere` } : undefined,
    testResults: statuses.map((status, i) => ({ status, ancestorTitles: ['group'], title: `t${i}` })),
  };
}

/** Aggregates the files the way Jest does, so the expectations below are independent figures. */
function aggregate(files: ReturnType<typeof file>[]) {
  const count = (s: Status) =>
    files.reduce((n, f) => n + f.testResults.filter((t) => t.status === s).length, 0);
  const failedSuite = (f: ReturnType<typeof file>) =>
    f.testExecError !== undefined || f.testResults.some((t) => t.status === 'failed');
  return {
    testResults: files,
    numPassedTests: count('passed'),
    numFailedTests: count('failed'),
    numPendingTests: count('pending'),
    numTodoTests: 0,
    numTotalTestSuites: files.length,
    numFailedTestSuites: files.filter(failedSuite).length,
    numPassedTestSuites: files.filter((f) => !failedSuite(f)).length,
    numRuntimeErrorTestSuites: files.filter((f) => f.testExecError !== undefined).length,
    wasInterrupted: false,
  };
}

describe('the one test-run summary', () => {
  it('ends with the line CI reads, counting tests as Jest does', () => {
    const lines = summaryLines(aggregate([file('a.test.ts', ['passed', 'passed'])]), '/repo', 1234);
    expect(lines.at(-1)).toBe('Tests: 2 passed, 0 failed');
    expect(lines).toContain('Suites: 1 passed, 1 total · 1.2 s');
    expect(lines).not.toContain('Failed:');
  });

  it('counts each suite that could not run as one failure and names every failure', () => {
    const lines = summaryLines(
      aggregate([
        file('ok.test.ts', ['passed']),
        file('bad.test.ts', ['passed', 'failed', 'pending']),
        file('broken.test.ts', [], "Cannot find module './x'"),
      ]),
      '/repo',
      0,
    );
    expect(lines.at(-1)).toBe('Tests: 2 passed, 2 failed');
    expect(lines).toContain('  bad.test.ts › group › t1');
    expect(lines).toContain("  broken.test.ts (could not run: Cannot find module './x')");
    expect(lines).toContain('Suites: 1 passed, 2 failed (1 could not run), 3 total · 0.0 s');
    expect(lines).toContain('Skipped: 1 test (neither passed nor failed)');
  });
});
