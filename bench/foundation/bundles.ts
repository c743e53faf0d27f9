import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, isSplitEntry, loadedAtImport, SPLIT_ENTRIES } from '../../infra/bundling';
import { schedules, workers } from '../../shared/queues';
import { routes } from '../../shared/routes';
import { importMs, median, ROOT } from '../support';
import { round } from './units';

// Every function bundled as deployed, what its import loads, and its fresh-process import time.

export const IMPORT_RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 15);

export type Kind = 'floor' | 'http' | 'worker' | 'schedule';

export interface Entry {
  name: string;
  kind: Kind;
  source: string;
}

export interface Bundle extends Entry {
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

export function entries(): Entry[] {
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
export async function bundleAll(outDir: string): Promise<Bundle[]> {
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
export function composition(bundle: Bundle, top = 12): Record<string, number> {
  const sizes = new Map<string, number>();
  for (const [input, info] of loadedOutputs(bundle).flatMap((o) => Object.entries(o?.inputs ?? {}))) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    const name = pkg ?? input.split('/').slice(0, 2).join('/');
    sizes.set(name, (sizes.get(name) ?? 0) + info.bytesInOutput);
  }
  return Object.fromEntries([...sizes].sort((a, b) => b[1] - a[1]).slice(0, top));
}

/** External `@duckdb/*` imports at the top of the bundle (not dynamic): the native addon at cold start. */
export function topLevelDuckDb(bundle: Bundle): boolean {
  return loadedOutputs(bundle)
    .flatMap((o) => o?.imports ?? [])
    .some((i) => i.external && i.path.startsWith('@duckdb/') && i.kind !== 'dynamic-import');
}

export function bundlesManifest(bundle: Bundle): boolean {
  return Object.values(bundle.metafile.outputs)
    .flatMap((o) => Object.keys(o.inputs))
    .some((i) => i.endsWith('shared/routes.ts'));
}

/** Runs the imports round-robin, so a slow moment of the machine hits every bundle alike. */
export function measureImports(
  bundles: Bundle[],
): Map<string, { medianMs: number; minMs: number; maxMs: number }> {
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
