import type { BuildOptions } from 'esbuild';

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

export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
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
  };
}
