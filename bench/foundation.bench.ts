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
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Bundle,
  bundleAll,
  bundlesManifest,
  composition,
  IMPORT_RUNS,
  measureImports,
  topLevelDuckDb,
} from './foundation/bundles';
import { CONNECTIONS, LOAD_SECONDS, loadTest } from './foundation/load';
import { targetsOf } from './foundation/targets';
import { kb, round } from './foundation/units';
import { ROOT } from './support';

type Imports = Map<string, { medianMs: number; minMs: number; maxMs: number }>;

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
    const functions = functionFigures(bundles, floor, imports, floorImport);
    const httpFns = bundles.filter((b) => b.kind === 'http');
    const largest = [...httpFns].sort((a, b) => b.bytes - a.bytes)[0];

    process.stdout.write(`   load: ${CONNECTIONS} connections, ${LOAD_SECONDS} s per target\n`);
    const http = await loadTest();
    const p99Ratio = http.p99RatioGet as number;
    const targets = targetsOf({ floor, bundles, imports, floorImport, p99Ratio });
    for (const t of targets) {
      const detail = t.failing.length ? ` [${t.failing.join(', ')}]` : '';
      process.stdout.write(`   ${t.pass ? 'PASS' : 'FAIL'} ${t.name}: ${t.worst} (${t.target})${detail}\n`);
    }
    return {
      esbuild:
        'infra/bundling.ts esbuildOptions (ESM, minified, node22, SDK bundled, module-first main fields)',
      floor: floorFigures(floor, imports, floorImport),
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

/** Each function's size and import time, beside the floor's (and built the other way round where it is). */
function functionFigures(
  bundles: Bundle[],
  floor: Bundle,
  imports: Imports,
  floorImport: number,
): Record<string, unknown> {
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
        ? {
            codeSplitting: splitFigures(
              b,
              b.other,
              imports.get(`${b.name}#other`)?.medianMs,
              floor,
              floorImport,
            ),
          }
        : {}),
    };
  }
  return functions;
}

function splitFigures(
  b: Bundle,
  oneFile: Bundle,
  oneFileMs: number | undefined,
  floor: Bundle,
  floorImport: number,
) {
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

/** The floor's figures: the reference of every target. */
function floorFigures(floor: Bundle, imports: Imports, floorImport: number) {
  return {
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
  };
}
