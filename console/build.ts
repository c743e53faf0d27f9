/** `npm run console:build`: writes the console's static files to console/dist (see bundle.ts). */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bundleConsole, CONSOLE_DIR } from './bundle';

async function main(): Promise<void> {
  const dist = join(CONSOLE_DIR, 'dist');
  const files = await bundleConsole();
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  for (const [name, body] of files) {
    writeFileSync(join(dist, name), body);
    process.stdout.write(`console/dist/${name}  ${body.length} B (gzip ${gzipSync(body).length} B)\n`);
  }
  process.stdout.write('Serve it with a config.json beside index.html: {"apiBaseUrl": "https://…"}\n');
}

main().catch((error) => {
  process.stderr.write(`console:build failed: ${(error as Error)?.message ?? error}\n`);
  process.exit(1);
});
