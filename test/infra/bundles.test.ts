import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, loadedAtImport } from '../../infra/bundling';
import { routes } from '../../shared/routes';

// The HTTP functions as CDK bundles them (`esbuildOptions` of infra/bundling.ts: code-split), each
// built on its own as CDK builds it (one run for all would share chunks between entries, and a
// shared chunk holds what any of them uses). A function is its entry file and every chunk it can
// reach; what it loads at import is the entry and its static chunks, the rest behind dynamic
// imports. DuckDB is external to every bundle and shipped to `billing-ingest` only, so an HTTP
// function must never import it at import time: that would load the native addon at cold start
// and crash in AWS, where the package is not there.
const out = mkdtempSync(join(tmpdir(), 'cms-http-bundles-'));
const httpEntries = [...new Set(routes.map((r) => `functions/http/${r.entry}.ts`))];
type Output = Metafile['outputs'][string];
interface Bundle {
  file: string;
  /** Every source in the entry or a chunk it can reach. */
  inputs: Output['inputs'];
  /** The imports of those files; those of lazily loaded chunks count as dynamic. */
  imports: Output['imports'];
}
let bundles: Map<string, Bundle>;

/** The output files an entry can load: statically or by dynamic import, transitively. */
function reachable(outputs: Metafile['outputs'], entry: string): string[] {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length) {
    const file = stack.pop() as string;
    if (seen.has(file) || !outputs[file]) continue;
    seen.add(file);
    for (const i of outputs[file].imports) if (!i.external) stack.push(i.path);
  }
  return [...seen];
}

async function bundleOf(entry: string): Promise<Bundle> {
  const outfile = join(out, entry.replace(/\.ts$/, ''), 'index.mjs');
  const metafile = (await build(esbuildOptions(entry, outfile))).metafile as Metafile;
  const outputs = metafile.outputs;
  const key = relative(process.cwd(), outfile);
  const atImport = new Set(loadedAtImport(metafile, key));
  const files = reachable(outputs, key);
  return {
    file: outfile,
    inputs: Object.assign({}, ...files.map((f) => outputs[f]?.inputs)),
    imports: files.flatMap((f) =>
      (outputs[f]?.imports ?? []).map((i) =>
        atImport.has(f) ? i : { ...i, kind: 'dynamic-import' as const },
      ),
    ),
  };
}

beforeAll(async () => {
  bundles = new Map(await Promise.all(httpEntries.map(async (e) => [e, await bundleOf(e)] as const)));
}, 300_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

const packagesIn = (o: Bundle) =>
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
