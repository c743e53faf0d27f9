import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling';
import { routes } from '../../shared/routes';

// The HTTP functions as CDK bundles them (`esbuildOptions` of infra/bundling.ts), built in one
// esbuild run. DuckDB is external to every bundle and shipped to `billing-ingest` only, so an
// HTTP function must never import it at the top of its bundle: that would load the native addon
// at cold start and crash at import in AWS, where the package is not there.
const out = mkdtempSync(join(tmpdir(), 'cms-http-bundles-'));
const httpEntries = [...new Set(routes.map((r) => `functions/http/${r.entry}.ts`))];
let bundles: Map<string, Metafile['outputs'][string] & { file: string }>;

beforeAll(async () => {
  const options = esbuildOptions(httpEntries[0] as string, join(out, 'unused.mjs'));
  const result = await build({
    ...options,
    outfile: undefined,
    entryPoints: httpEntries,
    outdir: out,
    outbase: '.',
    outExtension: { '.js': '.mjs' },
  });
  const outputs = (result.metafile as Metafile).outputs;
  bundles = new Map(
    Object.entries(outputs)
      .filter(([, o]) => o.entryPoint)
      .map(([file, o]) => [o.entryPoint as string, { ...o, file: join(process.cwd(), file) }]),
  );
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

const packagesIn = (o: Metafile['outputs'][string]) =>
  new Set(
    Object.keys(o.inputs).flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? []),
  );

describe('HTTP function bundles', () => {
  it('builds every route entry', () => {
    expect([...bundles.keys()].sort()).toEqual([...httpEntries].sort());
  });

  it('never import DuckDB at the top of the bundle; only warehouse routes load it, lazily', () => {
    const staticDuck: string[] = [];
    const lazyDuck: string[] = [];
    for (const [entry, o] of bundles) {
      const duck = o.imports.filter((i) => i.external && i.path.startsWith('@duckdb/'));
      if (duck.some((i) => i.kind !== 'dynamic-import')) staticDuck.push(entry);
      else if (duck.length) lazyDuck.push(entry);
    }
    expect(staticDuck).toEqual([]);
    const warehouseRoutes = routes.filter((r) => r.usesWarehouse).map((r) => `functions/http/${r.entry}.ts`);
    for (const entry of lazyDuck) expect(warehouseRoutes).toContain(entry);
    expect(lazyDuck).toContain('functions/http/queries/usage-metrics.ts');
  });

  it('keep the CEL library in PUT /enrichments/{name} only, and ingestion code and S3 out of every route', () => {
    const withCel = [...bundles].filter(([, o]) => packagesIn(o).has('@marcbachmann/cel-js')).map(([e]) => e);
    expect(withCel).toEqual(['functions/http/enrichments/put-enrichment.ts']);
    for (const [entry, o] of bundles) {
      const inputs = Object.keys(o.inputs);
      expect({ entry, s3: packagesIn(o).has('@aws-sdk/client-s3') }).toEqual({ entry, s3: false });
      expect({ entry, ingest: inputs.filter((i) => i.includes('shared/warehouse/ingest/')) }).toEqual({
        entry,
        ingest: [],
      });
    }
  });

  it('bundle the SQS client only where the route declares a queue to send to (GET and list enrichments do not)', () => {
    const sends = new Set(routes.filter((r) => r.sendsTo?.length).map((r) => `functions/http/${r.entry}.ts`));
    const withSqs = [...bundles].filter(([, o]) => packagesIn(o).has('@aws-sdk/client-sqs')).map(([e]) => e);
    for (const entry of withSqs)
      expect({ entry, sendsTo: sends.has(entry) }).toEqual({ entry, sendsTo: true });
    expect(withSqs).toEqual(
      expect.arrayContaining([
        'functions/http/enrichments/put-enrichment.ts',
        'functions/http/enrichments/delete-enrichment.ts',
        'functions/http/dimensions/publish.ts',
      ]),
    );
    for (const entry of ['get-enrichment', 'list-enrichments']) {
      const o = bundles.get(`functions/http/enrichments/${entry}.ts`);
      expect(o).toBeDefined();
      const packages = o ? packagesIn(o) : new Set<string>();
      expect(['@aws-sdk/client-sqs', 'yaml', '@marcbachmann/cel-js'].filter((p) => packages.has(p))).toEqual(
        [],
      );
    }
  });

  it('the usage-metrics bundle imports in Athena mode where @duckdb/node-api is not installed', () => {
    const bundle = bundles.get('functions/http/queries/usage-metrics.ts');
    expect(bundle).toBeDefined();
    // The bundle sits in a temporary folder with no node_modules above it, as in a Lambda asset.
    expect(relative(tmpdir(), bundle?.file ?? '').startsWith('..')).toBe(false);
    const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle?.file ?? '').href)});
      process.stdout.write(typeof m.handler);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: out,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'us-east-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        TABLE_NAME: 'cost-management',
        WAREHOUSE: 'athena',
      },
    });
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
    expect(child.stdout).toBe('function');
  });
});
