import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

/**
 * The files chart and PDF rendering read at run time: the DejaVu Sans TTFs (resvg loads no system
 * fonts; pdfkit embeds them) and resvg's WebAssembly module. In a Lambda they sit in `assets/`
 * beside the bundle (the stack copies them there, see infra/constructs/service-function.ts); in
 * the repository the fonts are in `assets/fonts/` and the wasm comes from `@resvg/resvg-wasm`.
 * `REPORT_ASSETS_DIR` overrides the folder.
 */
export const FONT_FILES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;
export const RESVG_WASM_FILE = 'resvg.wasm';
export const FONT_FAMILY = 'DejaVu Sans';

function candidates(): string[] {
  return [
    process.env.REPORT_ASSETS_DIR,
    process.env.LAMBDA_TASK_ROOT ? join(process.env.LAMBDA_TASK_ROOT, 'assets') : undefined,
    resolve(process.cwd(), 'assets'),
  ].filter((d): d is string => Boolean(d));
}

function find(rel: string): string | undefined {
  for (const dir of candidates()) {
    const p = join(dir, rel);
    if (existsSync(p)) return p;
  }
  return undefined;
}

export function fontPath(weight: keyof typeof FONT_FILES): string {
  const p = find(join('fonts', FONT_FILES[weight]));
  if (!p) throw new Error(`report font ${FONT_FILES[weight]} not found in ${candidates().join(', ')}`);
  return p;
}

export function resvgWasmPath(): string {
  const p = find(RESVG_WASM_FILE);
  if (p) return p;
  // The repository (tests, local stack, benches): the package's own file.
  return createRequire(join(process.cwd(), 'package.json')).resolve('@resvg/resvg-wasm/index_bg.wasm');
}

let fonts: Uint8Array[] | undefined;
/** Both weights, read once per process. */
export function fontBuffers(): Uint8Array[] {
  fonts ??= [readFileSync(fontPath('regular')), readFileSync(fontPath('bold'))];
  return fonts;
}
