/**
 * One Jest run for every suite: unit, integration (real emulators), infra (CDK assertions) and
 * e2e (HTTP against the local stack). The global setup starts the local stack once, on free
 * ports and a throwaway state folder, and tears it down at the end.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)sx?$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|jose|@marcbachmann/cel-js|dt-sql-parser|antlr4-c3|echarts|zrender)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  // Each suite closes the DuckDB database it opened (test/support/close-duckdb.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/close-duckdb.ts'],
  testTimeout: 60_000,
  // A suite must close what it opens (docs/local.md, "Tests"; `--detectOpenHandles` names what is
  // left). No forceExit: Jest ends on its own once every suite has closed its handles.
  maxWorkers: 2,
  // Jest's progress and failure details, then one summary instead of Jest's own (see the file).
  reporters: ['<rootDir>/test/support/summary-reporter.js'],
};
