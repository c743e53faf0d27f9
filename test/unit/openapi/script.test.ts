import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { routes } from '../../../shared/routes';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..', '..');
const openapi = (args: string[]) =>
  run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/openapi.ts'), ...args], {
    cwd: ROOT,
    maxBuffer: 32 * 1024 * 1024,
  });

describe('npm run openapi', () => {
  it('writes the document and prints where', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cms-openapi-')), 'openapi.json');
    const { stdout } = await openapi(['--out', out]);
    expect(resolve(ROOT, stdout.trim())).toBe(out);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { openapi: string; paths: Record<string, object> };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(routes.length);
  });

  it('prints the document with --stdout, with the server asked for', async () => {
    const { stdout } = await openapi(['--stdout', '--server', 'https://api.example.com']);
    const doc = JSON.parse(stdout) as { servers: { url: string }[] };
    expect(doc.servers).toEqual([{ url: 'https://api.example.com' }]);
  });

  it('refuses an unknown argument', async () => {
    await expect(openapi(['--bogus'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Unknown argument --bogus'),
    });
  });
});
