/**
 * `npm run openapi`: writes the OpenAPI 3.1 document of the route manifest to `dist/openapi.json`
 * and prints its path. `--stdout` prints the document instead; `--out FILE` writes elsewhere;
 * `--server URL` lists a server base URL in the document.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { buildOpenApi } from '../infra/openapi';
import { routes } from '../shared/routes';

function main(argv: string[]): void {
  let stdout = false;
  let out = resolve(__dirname, '..', 'dist', 'openapi.json');
  let serverUrl: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--stdout') stdout = true;
    else if (a === '--out' && argv[i + 1]) out = resolve(String(argv[++i]));
    else if (a === '--server' && argv[i + 1]) serverUrl = String(argv[++i]);
    else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: npm run openapi [-- --stdout | --out FILE] [--server URL]\n');
      return;
    } else throw new Error(`Unknown argument ${a}`);
  }
  const text = `${JSON.stringify(buildOpenApi(routes, serverUrl ? { serverUrl } : {}), null, 2)}\n`;
  if (stdout) {
    process.stdout.write(text);
    return;
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  process.stdout.write(`${relative(process.cwd(), out) || out}\n`);
}

// `npm run openapi -- --stdout | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`npm run openapi: ${(error as Error).message}\n`);
  process.exit(1);
}
