import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary folder of the enclosing suite: its path, and the path of a file in it. */
export interface SuiteFolder {
  path: () => string;
  file: (name: string) => string;
}

/**
 * A fresh folder under the OS's temporary folder, its name starting with `prefix`, made before the
 * enclosing suite's tests (for the files they write); the getters answer once it is made.
 */
export function suiteFolder(prefix: string): SuiteFolder {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  const path = () => {
    if (!dir) throw new Error('the suite folder is not made yet');
    return dir;
  };
  return { path, file: (name) => join(path(), name) };
}
