import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DUCKDB_BINDING_FILE } from '../../infra/bundling';
import { workers } from '../../shared/queues';
import { synthWorkerAssets } from './support';

// A real synth (bundling on) of a stack holding the workers that need DuckDB: their asset must
// carry @duckdb/node-api with the linux-x64 binding, installed by `npm ci` at synth, and the bundle
// must load DuckDB from there with ESM resolution, as the Lambda runtime does from /var/task.
const outdir = mkdtempSync(join(tmpdir(), 'cms-duckdb-asset-'));
let assetDirs: string[];

beforeAll(() => {
  const duckDbWorkers = workers.filter((w) => w.needsDuckDb);
  assetDirs = synthWorkerAssets(outdir, duckDbWorkers);
  expect(assetDirs).toHaveLength(duckDbWorkers.length);
}, 180_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the asset of a worker that needs DuckDB', () => {
  it('holds the bundle and DuckDB with its linux-x64 binding, and nothing else from node_modules', () => {
    for (const dir of assetDirs) {
      expect(existsSync(join(dir, 'index.mjs'))).toBe(true);
      expect(existsSync(join(dir, DUCKDB_BINDING_FILE))).toBe(true);
      const installed = JSON.parse(readFileSync(join(dir, 'node_modules/.package-lock.json'), 'utf8')) as {
        packages: Record<string, unknown>;
      };
      expect(Object.keys(installed.packages).sort()).toEqual([
        'node_modules/@duckdb/node-api',
        'node_modules/@duckdb/node-bindings',
        'node_modules/@duckdb/node-bindings-linux-x64',
        'node_modules/detect-libc',
      ]);
      // The bundle (code-split: index.mjs and its chunks) loads DuckDB lazily (a dynamic import),
      // never at the top of any file.
      const files = ['index.mjs', ...readdirSync(join(dir, 'chunks')).map((c) => `chunks/${c}`)];
      const code = files.map((f) => readFileSync(join(dir, f), 'utf8'));
      expect(code.some((text) => text.includes('import("@duckdb/node-api")'))).toBe(true);
      for (const text of code) expect(text).not.toMatch(/from\s*["']@duckdb\//);
    }
  });

  it('loads DuckDB from the asset the way the bundle does, and the handler imports', () => {
    for (const dir of assetDirs) {
      writeFileSync(
        join(dir, 'probe.mjs'),
        [
          "const { DuckDBInstance } = await import('@duckdb/node-api');",
          "const conn = await (await DuckDBInstance.create(':memory:')).connect();",
          'const rows = (await conn.runAndReadAll("SELECT 40 + 2 AS x, json_extract(\'{\\"a\\": 7}\', \'$.a\')::INT AS a")).getRowObjectsJson();',
          "const { handler } = await import('./index.mjs');",
          'process.stdout.write(JSON.stringify({ rows, handler: typeof handler }));',
        ].join('\n'),
      );
      const child = spawnSync(process.execPath, ['probe.mjs'], {
        cwd: dir,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          HOME: '/tmp',
          AWS_REGION: 'us-east-1',
          TABLE_NAME: 't',
          WAREHOUSE: 'athena',
        },
      });
      expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
      expect(JSON.parse(child.stdout)).toEqual({ rows: [{ x: 42, a: 7 }], handler: 'function' });
    }
  });
});
