import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/**
 * Writes `start`, then `text` of each row, to `path` in chunks of about 1 MB (waiting when the file
 * asks); returns the number of rows. The generated exports' one writer (FOCUS and native formats).
 */
export async function writeRows<R>(
  path: string,
  start: string,
  rows: Iterable<R>,
  text: (row: R) => string,
): Promise<number> {
  const out = createWriteStream(path);
  let count = 0;
  let buffer = start;
  for (const row of rows) {
    buffer += text(row);
    count++;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
  return count;
}
