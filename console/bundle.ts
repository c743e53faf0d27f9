/**
 * Bundles the console (Preact + ECharts + the shared chart-spec builder) with esbuild, in memory:
 * `index.html`, `main.js`, `style.css`. The local runtime serves the answer as it is; `npm run
 * console:build` writes it to console/dist for static hosting. `config.json` is never bundled: the
 * server that hosts the files writes it (the API base URL), so one build serves every stage.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, build, buildSync } from 'esbuild';

export const CONSOLE_DIR = __dirname;

export const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

const OPTIONS: BuildOptions = {
  entryPoints: [join(CONSOLE_DIR, 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  outfile: join(CONSOLE_DIR, 'dist', 'main.js'),
  write: false,
  logLevel: 'silent',
};

/** The files besides the bundle. */
function staticFiles(): [string, Uint8Array][] {
  return [
    ['index.html', readFileSync(join(CONSOLE_DIR, 'index.html'))],
    ['style.css', readFileSync(join(CONSOLE_DIR, 'src', 'style.css'))],
  ];
}

/** File name (`main.js`) → contents. */
export async function bundleConsole(): Promise<Map<string, Uint8Array>> {
  const out = await build(OPTIONS);
  const files = new Map<string, Uint8Array>();
  for (const f of out.outputFiles ?? []) files.set(f.path.slice(f.path.lastIndexOf('/') + 1), f.contents);
  for (const [name, body] of staticFiles()) files.set(name, body);
  return files;
}

/**
 * The same files written to `outDir`, synchronously: the CDK asset of the console is bundled this
 * way at synth (`ConsoleHosting`), where bundling cannot await.
 */
export function writeConsoleSync(outDir: string): string[] {
  const out = buildSync(OPTIONS);
  mkdirSync(outDir, { recursive: true });
  const names: string[] = [];
  for (const f of out.outputFiles ?? []) {
    const name = f.path.slice(f.path.lastIndexOf('/') + 1);
    writeFileSync(join(outDir, name), f.contents);
    names.push(name);
  }
  for (const [name, body] of staticFiles()) {
    writeFileSync(join(outDir, name), body);
    names.push(name);
  }
  return names;
}
