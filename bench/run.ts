/**
 * `npm run bench`: runs every `bench/*.bench.ts` in turn (or those named on the command line) and
 * writes their figures to `bench/results.json`, one key per benchmark file. Each benchmark
 * module default-exports `async () => Record<string, unknown>`. Figures and targets only: no
 * test ever asserts on wall-clock time.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Bench = () => Promise<Record<string, unknown>>;

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => !only.length || only.some((o) => f.startsWith(o)))
    .sort();
  const out = join(__dirname, 'results.json');
  const results: Record<string, unknown> = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
  results.machine = {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: (await import('node:os')).cpus().length,
  };
  for (const file of files) {
    const name = file.replace(/\.bench\.ts$/, '');
    process.stdout.write(`== bench ${name}\n`);
    const started = Date.now();
    const mod = (await import(join(__dirname, file))) as { default: Bench | { default: Bench } };
    const fn = typeof mod.default === 'function' ? mod.default : mod.default.default;
    results[name] = {
      ...(await fn()),
      measuredAt: new Date().toISOString(),
      seconds: (Date.now() - started) / 1000,
    };
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  }
  process.stdout.write(`wrote ${out}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
