/**
 * The foundation benchmark (`npx tsx bench/run.ts foundation`, part of `npm run bench`):
 * - the minified bundle of every function (HTTP routes, workers, schedules), built with
 *   the deployed esbuild options (every function code-split), sized from the esbuild metafile as
 *   what an import loads: the entry and its static chunks, lazy chunks apart; SPLIT_ENTRIES also
 *   built as one file beside it, and the floor also split;
 * - the fresh-process import time of every HTTP function (median of N child processes);
 * - the floor: a minimal DocumentClient GetItem handler bundled as one file (the reference of the
 *   targets; its split build is reported beside it);
 * - latency and throughput of GET and PATCH /reports/{id} on the local stack under autocannon,
 *   beside a bare node:http server doing the same DynamoDB Local GetItem;
 * - the targets, each with pass/fail.
 * Figures only: nothing here is asserted by a test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, isSplitEntry, loadedAtImport, SPLIT_ENTRIES } from '../infra/bundling';
import { keys } from '../shared/db/keys';
import { schedules, workers } from '../shared/queues';
import { routes } from '../shared/routes';
import { importMs, median, percentile, ROOT, round as roundTo, startStack } from './support';

/** This benchmark's figures carry two decimals unless told. */
const round = (n: number, digits = 2) => roundTo(n, digits);

const IMPORT_RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 15);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const ROUNDS = 2;
const CONNECTIONS = 10;
const SIZE_FACTOR = 1.25;
/** Workers and schedules: bytes loaded at import vs the floor (issue 26 §4). */
const JOB_SIZE_FACTOR = 2;
const IMPORT_FACTOR = 1.25;
const MAX_P99_RATIO = 2;

type Kind = 'floor' | 'http' | 'worker' | 'schedule';

interface Entry {
  name: string;
  kind: Kind;
  source: string;
}

interface Bundle extends Entry {
  file: string;
  /** What an import of the bundle loads: the entry file and the chunks it imports statically. */
  bytes: number;
  /** Chunks behind dynamic imports (code-split functions only), loaded when first needed. */
  lazyBytes: number;
  /** Metafile keys of the files loaded at import. */
  loaded: string[];
  metafile: Metafile;
  /** The same entry built the other way round (one file for a split entry; split for the floor). */
  other?: Bundle;
}

// ---------------------------------------------------------------------------------------------
// Bundles

function entries(): Entry[] {
  const list: Entry[] = [{ name: 'floor', kind: 'floor', source: join(ROOT, 'bench/floor/handler.ts') }];
  const seen = new Set<string>();
  for (const r of routes) {
    if (seen.has(r.entry)) continue;
    seen.add(r.entry);
    list.push({ name: r.entry, kind: 'http', source: join(ROOT, 'functions/http', `${r.entry}.ts`) });
  }
  for (const w of workers)
    list.push({ name: w.entry, kind: 'worker', source: join(ROOT, 'functions', `${w.entry}.ts`) });
  for (const s of schedules) {
    list.push({ name: s.entry, kind: 'schedule', source: join(ROOT, 'functions', `${s.entry}.ts`) });
  }
  return list;
}

async function bundleOne(e: Entry, outDir: string, split: boolean): Promise<Bundle> {
  const file = join(
    outDir,
    `${e.name.replaceAll('/', '__')}${split === isSplitEntry(e.source) ? '' : '.other'}.mjs`,
  );
  const result = await build(esbuildOptions(e.source, file, { split }));
  const metafile = result.metafile as Metafile;
  const key = relative(process.cwd(), file);
  if (!metafile.outputs[key]) throw new Error(`esbuild wrote no ${key} for ${e.name}`);
  const loaded = loadedAtImport(metafile, key);
  const bytesOf = (files: string[]) => files.reduce((a, f) => a + (metafile.outputs[f]?.bytes ?? 0), 0);
  const bytes = bytesOf(loaded);
  return { ...e, file, bytes, lazyBytes: bytesOf(Object.keys(metafile.outputs)) - bytes, loaded, metafile };
}

/** Whether the benchmark also builds this entry the other way round (one file; split for the floor). */
const comparedBothWays = (e: Entry) =>
  e.kind === 'floor' || SPLIT_ENTRIES.some((listed) => e.source.endsWith(`/${listed}`));

/**
 * Every function as deployed (every function is code-split, infra/bundling.ts); the functions of
 * SPLIT_ENTRIES also as one file, and the floor also split, so the gain of splitting shows beside
 * what splitting alone does to the floor.
 */
async function bundleAll(outDir: string): Promise<Bundle[]> {
  return Promise.all(
    entries().map(async (e) => {
      const bundle = await bundleOne(e, outDir, isSplitEntry(e.source));
      if (comparedBothWays(e)) bundle.other = await bundleOne(e, outDir, !isSplitEntry(e.source));
      return bundle;
    }),
  );
}

const loadedOutputs = (bundle: Bundle) => bundle.loaded.map((f) => bundle.metafile.outputs[f]);

/** Bytes in the output per package (or per first-party folder), largest first. */
function composition(bundle: Bundle, top = 12): Record<string, number> {
  const sizes = new Map<string, number>();
  for (const [input, info] of loadedOutputs(bundle).flatMap((o) => Object.entries(o?.inputs ?? {}))) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    const name = pkg ?? input.split('/').slice(0, 2).join('/');
    sizes.set(name, (sizes.get(name) ?? 0) + info.bytesInOutput);
  }
  return Object.fromEntries([...sizes].sort((a, b) => b[1] - a[1]).slice(0, top));
}

/** External `@duckdb/*` imports at the top of the bundle (not dynamic): the native addon at cold start. */
function topLevelDuckDb(bundle: Bundle): boolean {
  return loadedOutputs(bundle)
    .flatMap((o) => o?.imports ?? [])
    .some((i) => i.external && i.path.startsWith('@duckdb/') && i.kind !== 'dynamic-import');
}

function bundlesManifest(bundle: Bundle): boolean {
  return Object.values(bundle.metafile.outputs)
    .flatMap((o) => Object.keys(o.inputs))
    .some((i) => i.endsWith('shared/routes.ts'));
}

// ---------------------------------------------------------------------------------------------
// Import time

/** Runs the imports round-robin, so a slow moment of the machine hits every bundle alike. */
function measureImports(bundles: Bundle[]): Map<string, { medianMs: number; minMs: number; maxMs: number }> {
  const samples = new Map<string, number[]>(bundles.map((b) => [b.name, []]));
  for (const b of bundles) importMs(b.file); // warm the file cache once
  for (let i = 0; i < IMPORT_RUNS; i++) {
    for (const b of bundles) samples.get(b.name)?.push(importMs(b.file));
  }
  return new Map(
    [...samples].map(([name, ms]) => [
      name,
      { medianMs: round(median(ms)), minMs: round(Math.min(...ms)), maxMs: round(Math.max(...ms)) },
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// Load

interface AutocannonClient {
  setRequests(
    requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[],
  ): void;
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (
  opts: Record<string, unknown>,
  cb: (err: Error | null, result: AutocannonResult) => void,
) => {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};

const autocannon = createRequire(__filename)('autocannon') as Autocannon;

interface Run {
  latencies: number[];
  seconds: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run, keeping every response time so runs can be pooled exactly. */
function cannon(opts: Record<string, unknown>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon({ connections: CONNECTIONS, ...opts }, (err, result) =>
      err
        ? reject(err)
        : resolve({
            latencies,
            seconds: result.duration,
            non2xx: result.non2xx,
            errors: result.errors + result.timeouts,
          }),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

/**
 * Runs two targets side by side: ROUNDS alternating runs each (A B, B A, …), so a busy moment of
 * the machine lands on both alike, then pools each target's response times.
 */
async function sideBySide(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Promise<[LoadFigures, LoadFigures]> {
  const runs: [Run[], Run[]] = [[], []];
  const duration = LOAD_SECONDS / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [1, 0] : [0, 1];
    for (const i of order) runs[i]?.push(await cannon({ ...(i ? b : a), duration }));
  }
  return [figures(runs[0]), figures(runs[1])];
}

interface LoadFigures {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  reqPerSec: number;
  requests: number;
  non2xx: number;
  errors: number;
}

function figures(runs: Run[]): LoadFigures {
  const all = runs.flatMap((r) => r.latencies);
  const seconds = runs.reduce((t, r) => t + r.seconds, 0);
  return {
    p50Ms: round(percentile(all, 50), 1),
    p99Ms: round(percentile(all, 99), 1),
    meanMs: round(all.reduce((t, x) => t + x, 0) / Math.max(all.length, 1), 1),
    maxMs: round(Math.max(0, ...all), 1),
    reqPerSec: round(all.length / Math.max(seconds, 1e-9), 1),
    requests: all.length,
    non2xx: runs.reduce((t, r) => t + r.non2xx, 0),
    errors: runs.reduce((t, r) => t + r.errors, 0),
  };
}

async function startBare(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/bare/server.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function createReport(baseUrl: string, token: string, name: string): Promise<string> {
  const res = await fetch(`${baseUrl}/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      description: 'benchmark report',
      widgets: [
        { type: 'TEXT', contentMarkdown: 'Weekly cloud spend' },
        { type: 'DIGEST', groupBy: ['ServiceName'] },
      ],
      destinations: [{ destinationType: 'EMAIL', destinationValues: ['finops@example.com'] }],
    }),
  });
  if (res.status !== 201) throw new Error(`creating a report answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function loadTest(): Promise<Record<string, unknown>> {
  const stack = await startStack();
  let bare: { url: string; child: ChildProcess } | undefined;
  try {
    const { baseUrl, apiKeys, orgId, endpoints, tableName } = stack.session;
    const token = apiKeys.admin;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const getId = await createReport(baseUrl, token, 'bench-get');
    // One report per connection, so PATCH measures an update, not version-conflict retries; the
    // bare PATCH has its own reports, so neither server's writes race the other's.
    const reports = (prefix: string) =>
      Promise.all(
        Array.from({ length: CONNECTIONS }, (_, i) => createReport(baseUrl, token, `${prefix}-${i}`)),
      );
    const patchIds = await reports('bench-patch');
    const barePatchIds = await reports('bench-bare-patch');
    const itemKey = keys.report(orgId, getId);
    bare = await startBare({
      DYNAMODB_ENDPOINT: endpoints.dynamodb,
      TABLE_NAME: tableName,
      ITEM_PK: itemKey.pk,
      ITEM_SK: itemKey.sk,
      PATCH_KEYS: JSON.stringify(Object.fromEntries(barePatchIds.map((id) => [id, keys.report(orgId, id)]))),
    });

    // Each connection PATCHes its own report, alternating two names: every request is a real
    // change and the item never grows.
    const patchOptsFor = (url: string, ids: string[]) => {
      let next = 0;
      return {
        url,
        setupClient: (client: AutocannonClient) => {
          const id = ids[next++ % ids.length];
          client.setRequests(
            ['bench-a', 'bench-b'].map((name) => ({
              method: 'PATCH',
              path: `/reports/${id}`,
              headers,
              body: JSON.stringify({ name }),
            })),
          );
        },
      };
    };
    const targets = {
      bareGet: { url: `${bare.url}/reports/${getId}` },
      stackGet: { url: `${baseUrl}/reports/${getId}`, headers },
      barePatch: patchOptsFor(bare.url, barePatchIds),
      stackPatch: patchOptsFor(baseUrl, patchIds),
    };
    for (const opts of Object.values(targets)) await cannon({ ...opts, duration: WARMUP_SECONDS });
    // Both servers stay up against the same DynamoDB Local; each pair runs side by side.
    const [bareGet, stackGet] = await sideBySide(targets.bareGet, targets.stackGet);
    const [barePatch, stackPatch] = await sideBySide(targets.barePatch, targets.stackPatch);
    const ratio = (a: number, b: number) => round(a / Math.max(b, 1));
    return {
      connections: CONNECTIONS,
      secondsPerTarget: LOAD_SECONDS,
      rounds: `${ROUNDS} alternating runs of ${LOAD_SECONDS / ROUNDS} s per target, response times pooled`,
      credential:
        'ak_ API key (admin), verified by the route (identity cached per process, revocation read per request)',
      dynamodbLocal: 'disk-backed (-dbPath -sharedDb), as npm start runs it',
      bare: bareGet,
      getReport: stackGet,
      barePatch,
      patchReport: stackPatch,
      p99RatioGet: ratio(stackGet.p99Ms, bareGet.p99Ms),
      p50RatioGet: ratio(stackGet.p50Ms, bareGet.p50Ms),
      p99RatioPatch: ratio(stackPatch.p99Ms, barePatch.p99Ms),
      p50RatioPatch: ratio(stackPatch.p50Ms, barePatch.p50Ms),
    };
  } finally {
    if (bare?.child.exitCode === null) {
      bare.child.stdin?.end();
      bare.child.kill('SIGTERM');
    }
    await stack.stop();
  }
}

// ---------------------------------------------------------------------------------------------

const kb = (bytes: number) => round(bytes / 1024, 1);

export default async function foundation(): Promise<Record<string, unknown>> {
  const outDir = mkdtempSync(join(tmpdir(), 'cms-bench-bundles-'));
  // The externals (DuckDB) resolve from the repository's node_modules when a bundle is imported.
  symlinkSync(join(ROOT, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  try {
    const bundles = await bundleAll(outDir);
    const floor = bundles.find((b) => b.kind === 'floor') as Bundle;
    const timed = bundles.filter((b) => b.kind === 'floor' || b.kind === 'http');
    process.stdout.write(`   import time: ${timed.length} bundles x ${IMPORT_RUNS} fresh processes\n`);
    const others = timed.flatMap((b) => (b.other ? [{ ...b.other, name: `${b.name}#other` }] : []));
    const imports = measureImports([...timed, ...others]);
    const floorImport = imports.get('floor')?.medianMs ?? 0;

    const functions: Record<string, unknown> = {};
    for (const b of bundles.filter((x) => x.kind !== 'floor')) {
      const imp = imports.get(b.name);
      functions[b.name] = {
        kind: b.kind,
        bytes: b.bytes,
        kb: kb(b.bytes),
        sizeVsFloor: round(b.bytes / floor.bytes),
        ...(imp ? { importMs: imp.medianMs, importVsFloor: round(imp.medianMs / floorImport) } : {}),
        bundlesManifest: bundlesManifest(b),
        topLevelDuckDb: topLevelDuckDb(b),
        ...(b.other
          ? { codeSplitting: splitFigures(b, b.other, imports.get(`${b.name}#other`)?.medianMs) }
          : {}),
      };
    }
    function splitFigures(b: Bundle, oneFile: Bundle, oneFileMs: number | undefined) {
      return {
        lazyChunkBytes: b.lazyBytes,
        deployedBytes: b.bytes + b.lazyBytes,
        asOneFile: {
          bytes: oneFile.bytes,
          sizeVsFloor: round(oneFile.bytes / floor.bytes),
          ...(oneFileMs !== undefined
            ? { importMs: oneFileMs, importVsFloor: round(oneFileMs / floorImport) }
            : {}),
        },
      };
    }
    const httpFns = bundles.filter((b) => b.kind === 'http');
    const largest = [...httpFns].sort((a, b) => b.bytes - a.bytes)[0];

    process.stdout.write(`   load: ${CONNECTIONS} connections, ${LOAD_SECONDS} s per target\n`);
    const http = await loadTest();

    const jobFns = bundles.filter((b) => b.kind === 'worker' || b.kind === 'schedule');
    const over = (limit: number, value: (b: Bundle) => number, fns = httpFns) =>
      fns.filter((b) => value(b) > limit).map((b) => `${b.name} ${round(value(b))}x`);
    const sizeOf = (b: Bundle) => b.bytes / floor.bytes;
    const importOf = (b: Bundle) => (imports.get(b.name)?.medianMs ?? 0) / floorImport;
    const sizeRatio = round(Math.max(...httpFns.map(sizeOf)));
    const importRatio = round(Math.max(...httpFns.map(importOf)));
    const jobSizeRatio = round(Math.max(...jobFns.map(sizeOf)));
    const p99Ratio = http.p99RatioGet as number;
    const manifestIn = bundles.filter(bundlesManifest).map((b) => b.name);
    const duckDbAtTop = httpFns.filter(topLevelDuckDb).map((b) => b.name);
    const targets = [
      {
        name: 'bundle size of every HTTP function vs the floor',
        target: `<= ${SIZE_FACTOR}x`,
        worst: sizeRatio,
        pass: sizeRatio <= SIZE_FACTOR,
        failing: over(SIZE_FACTOR, sizeOf),
      },
      {
        name: 'fresh import time (median) of every HTTP function vs the floor',
        target: `<= ${IMPORT_FACTOR}x`,
        worst: importRatio,
        pass: importRatio <= IMPORT_FACTOR,
        failing: over(IMPORT_FACTOR, importOf),
      },
      {
        name: 'p99 of GET /reports/{id} on the local stack vs the bare node:http GetItem',
        target: `<= ${MAX_P99_RATIO}x`,
        worst: p99Ratio,
        pass: p99Ratio <= MAX_P99_RATIO,
        failing: [],
      },
      {
        name: 'no HTTP function imports DuckDB at the top of its bundle (only lazily, where a database opens)',
        target: 'none',
        worst: duckDbAtTop.length,
        pass: duckDbAtTop.length === 0,
        failing: duckDbAtTop,
      },
      {
        name: 'bundle size of every worker and schedule vs the floor',
        target: `<= ${JOB_SIZE_FACTOR}x`,
        worst: jobSizeRatio,
        pass: jobSizeRatio <= JOB_SIZE_FACTOR,
        failing: over(JOB_SIZE_FACTOR, sizeOf, jobFns),
      },
      {
        name: 'no function bundles the route manifest (shared/routes.ts)',
        target: 'none',
        worst: manifestIn.length,
        pass: manifestIn.length === 0,
        failing: manifestIn,
      },
    ];
    for (const t of targets) {
      const detail = t.failing.length ? ` [${t.failing.join(', ')}]` : '';
      process.stdout.write(`   ${t.pass ? 'PASS' : 'FAIL'} ${t.name}: ${t.worst} (${t.target})${detail}\n`);
    }
    return {
      esbuild:
        'infra/bundling.ts esbuildOptions (ESM, minified, node22, SDK bundled, module-first main fields)',
      floor: {
        source: 'bench/floor/handler.ts',
        bytes: floor.bytes,
        kb: kb(floor.bytes),
        importMs: floorImport,
        importSpreadMs: imports.get('floor'),
        composition: composition(floor),
        ...(floor.other
          ? {
              // For comparison only: the floor built with code splitting too (the AWS SDK's lazy
              // credential providers go to chunks), the baseline if every function were split.
              codeSplit: {
                bytes: floor.other.bytes,
                lazyChunkBytes: floor.other.lazyBytes,
                importMs: imports.get('floor#other')?.medianMs,
              },
            }
          : {}),
      },
      importRuns: IMPORT_RUNS,
      functions,
      largestHttpFunction: largest ? { name: largest.name, composition: composition(largest) } : null,
      http,
      targets,
      allTargetsPass: targets.every((t) => t.pass),
    };
  } finally {
    unlinkSync(join(outDir, 'node_modules'));
    rmSync(outDir, { recursive: true, force: true });
  }
}
