/**
 * Bundles the console (Preact + ECharts + the shared chart-spec builder) with esbuild, in memory:
 * `index.html`, `main.js`, `style.css`. The local runtime serves the answer as it is; `npm run
 * console:build` writes it to console/dist for static hosting. `config.json` is never bundled: the
 * server that hosts the files writes it (the API base URL), so one build serves every stage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export const CONSOLE_DIR = __dirname;

export const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** File name (`main.js`) → contents. */
export async function bundleConsole(): Promise<Map<string, Uint8Array>> {
  const out = await build({
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
  });
  const files = new Map<string, Uint8Array>();
  for (const f of out.outputFiles) files.set(f.path.slice(f.path.lastIndexOf('/') + 1), f.contents);
  files.set('index.html', readFileSync(join(CONSOLE_DIR, 'index.html')));
  files.set('style.css', readFileSync(join(CONSOLE_DIR, 'src', 'style.css')));
  return files;
}
