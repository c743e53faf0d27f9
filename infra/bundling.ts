import { basename, dirname, join } from 'node:path';
import type { BuildOptions, Metafile } from 'esbuild';

/**
 * How every Lambda is bundled, shared by the CDK stack (NodejsFunction `bundling`) and the
 * benchmarks (which measure exactly what is deployed): ESM, minified, the AWS SDK bundled (not
 * taken from the runtime), module-first resolution for tree-shaking, and a `createRequire`
 * banner for the few dependencies that still call `require`.
 */
export const LAMBDA_TARGET = 'node22';

export const ESM_REQUIRE_BANNER =
  "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);";

/** Packages that ship native binaries or are loaded at run time and so stay outside the bundle. */
export const EXTERNAL_MODULES = ['@duckdb/node-api', '@duckdb/node-bindings'];

/**
 * What a function that opens DuckDB in AWS (`needsDuckDb` in shared/queues.ts) gets installed
 * next to its bundle (`bundling.nodeModules`): `npm ci` from the lockfile, for linux-x64 glibc
 * whatever machine synthesises (the npm registry reachable here serves no linux-arm64 binding,
 * so such a function runs on x86_64). Every other function ships no DuckDB at all.
 */
export const DUCKDB_NODE_MODULES = ['@duckdb/node-api'];
export const DUCKDB_PLATFORM = { os: 'linux', cpu: 'x64', libc: 'glibc' } as const;
/** The native binding `npm ci` must have installed; synth fails when it is missing. */
export const DUCKDB_BINDING_FILE = `node_modules/@duckdb/node-bindings-${DUCKDB_PLATFORM.os}-${DUCKDB_PLATFORM.cpu}/duckdb.node`;

/**
 * Functions built with ESM code splitting: what they load by dynamic import goes to a chunk beside
 * the bundle (`chunks/`), parsed only when first needed instead of at every cold start. That is
 * every function (`SPLIT_FOLDERS`): splitting alone leaves the AWS SDK's own lazily imported
 * credential providers in chunks (about 115 KB of the benchmark floor's 340 KB), and what a
 * function needs only on some invocations goes behind a dynamic import at its seam: the Secrets
 * Manager client (`shared/cloud/secrets.ts`), the warehouse adapter the deployment names
 * (`shared/warehouse/queries.ts`: Athena in AWS, DuckDB locally). A one-file bundle would inline a
 * dynamic import of our own modules and lose tree-shaking on the clients they import.
 * `SPLIT_ENTRIES` names the functions the benchmark also builds as one file, to show the gain:
 * `PUT /enrichments/{name}` loads the YAML parser for YAML bodies only and the CEL compiler only for
 * documents with `conditions` (about 200 KB of its 640 KB); the report-delivery worker loads its
 * PNG and PDF renderers (ECharts, zrender, resvg, pdfkit, fontkit) and the MIME builder
 * (nodemailer) only for a report that has charts, PDFs or email destinations: about three quarters
 * of its 1.77 MB.
 */
export const SPLIT_ENTRIES: readonly string[] = [
  'functions/http/enrichments/put-enrichment.ts',
  'functions/workers/report-delivery.ts',
];
/** Folders whose every entry is built with code splitting. */
export const SPLIT_FOLDERS: readonly string[] = ['functions/'];
export const CHUNK_NAMES = 'chunks/[name]-[hash]';

/** Whether an entry (relative to the project root, or absolute) is built with code splitting. */
export function isSplitEntry(entry: string): boolean {
  const path = entry.replaceAll('\\', '/');
  return (
    SPLIT_ENTRIES.some((e) => path === e || path.endsWith(`/${e}`)) ||
    SPLIT_FOLDERS.some((folder) => path.startsWith(folder) || path.includes(`/${folder}`))
  );
}

/**
 * Packages a chart-rendering function bundles but never runs, each replaced by a stub in
 * `infra/stubs/` (paths relative to the project root): fontkit imports brotli (460 KB, most of it
 * its dictionary) only to read WOFF2 fonts, and the renderer embeds TTF fonts only.
 */
export const CHART_BUNDLE_ALIASES: Readonly<Record<string, string>> = { brotli: './infra/stubs/brotli' };

/** Options per function on top of the shared ones. */
export interface BundleFlavour {
  /** The function renders charts and PDFs (`rendersCharts` of a worker): `CHART_BUNDLE_ALIASES` apply. */
  rendersCharts?: boolean;
  /** Built with code splitting; defaults to `isSplitEntry` (the benchmark builds `SPLIT_ENTRIES` the other way too). */
  split?: boolean;
}

/**
 * `CHART_BUNDLE_ALIASES` as esbuild CLI arguments for CDK (`--alias:brotli=<root>/infra/stubs/brotli`),
 * absolute since CDK runs esbuild in the asset's output folder.
 */
export function chartAliasArgs(projectRoot: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(CHART_BUNDLE_ALIASES).map(([k, v]) => [`--alias:${k}`, join(projectRoot, v)]),
  );
}

export function esbuildOptions(entry: string, outfile: string, flavour: BundleFlavour = {}): BuildOptions {
  const split = flavour.split ?? isSplitEntry(entry);
  const common: BuildOptions = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_TARGET,
    minify: true,
    sourcemap: false,
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    external: EXTERNAL_MODULES,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    ...(flavour.rendersCharts ? { alias: { ...CHART_BUNDLE_ALIASES } } : {}),
  };
  if (!split) return { ...common, entryPoints: [entry], outfile };
  // The entry is written to `outfile` all the same; its chunks go to `chunks/` beside it.
  return {
    ...common,
    entryPoints: [{ in: entry, out: basename(outfile).replace(/\.m?js$/, '') }],
    outdir: dirname(outfile),
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: CHUNK_NAMES,
  };
}

/**
 * The output files a bundle loads when it is imported: the entry and the chunks it imports
 * statically, transitively (not those behind a dynamic import). Paths are the metafile's keys.
 */
export function loadedAtImport(metafile: Metafile, entryOutput: string): string[] {
  const seen = new Set<string>();
  const stack = [entryOutput];
  while (stack.length) {
    const file = stack.pop() as string;
    if (seen.has(file) || !metafile.outputs[file]) continue;
    seen.add(file);
    for (const i of metafile.outputs[file].imports)
      if (i.kind === 'import-statement' && !i.external) stack.push(i.path);
  }
  return [...seen];
}

const shellQuote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * The CDK side of a split entry (`commandHooks.afterBundling` of `NodejsFunction`, whose own esbuild
 * run can only write one `--outfile`): esbuild again over the same entry with the same settings
 * plus splitting, writing `index.mjs` over the single-file bundle and its chunks beside it. `alias`
 * takes the same arguments as `esbuildArgs` (`chartAliasArgs` for a function that renders charts).
 * `test/infra/split-asset.test.ts` synthesises such functions and runs them from their assets.
 */
export function splitBundlingCommand(
  entryPath: string,
  outputDir: string,
  alias: Readonly<Record<string, string>> = {},
): string {
  const args = [
    'npx',
    '--no-install',
    'esbuild',
    '--bundle',
    entryPath,
    '--platform=node',
    '--format=esm',
    `--target=${LAMBDA_TARGET}`,
    '--minify',
    '--main-fields=module,main',
    `--banner:js=${ESM_REQUIRE_BANNER}`,
    ...EXTERNAL_MODULES.map((m) => `--external:${m}`),
    '--legal-comments=none',
    '--log-level=error',
    '--splitting',
    `--outdir=${outputDir}`,
    '--entry-names=index',
    `--chunk-names=${CHUNK_NAMES}`,
    '--out-extension:.js=.mjs',
    ...Object.entries(alias).map(([flag, target]) => `${flag}=${target}`),
  ];
  return args.map(shellQuote).join(' ');
}

/**
 * What a function that renders charts and PDFs (`rendersCharts` of a worker) gets copied beside its
 * bundle, in `assets/` (shared/domain/reports/render/assets.ts reads them from
 * `$LAMBDA_TASK_ROOT/assets`): the DejaVu Sans TTFs with their licence, and resvg's WebAssembly
 * module. Paths are relative to the project root.
 */
export const CHART_ASSET_FILES: readonly { from: string; to: string }[] = [
  { from: 'assets/fonts/DejaVuSans.ttf', to: 'assets/fonts/DejaVuSans.ttf' },
  { from: 'assets/fonts/DejaVuSans-Bold.ttf', to: 'assets/fonts/DejaVuSans-Bold.ttf' },
  { from: 'assets/fonts/LICENSE-DejaVu.txt', to: 'assets/fonts/LICENSE-DejaVu.txt' },
  { from: 'node_modules/@resvg/resvg-wasm/index_bg.wasm', to: 'assets/resvg.wasm' },
];

/** Shell commands copying `CHART_ASSET_FILES` from the project root into a bundle's folder. */
export function chartAssetCommands(inputDir: string, outputDir: string): string[] {
  return [
    `mkdir -p "${outputDir}/assets/fonts"`,
    ...CHART_ASSET_FILES.map((f) => `cp "${inputDir}/${f.from}" "${outputDir}/${f.to}"`),
  ];
}
