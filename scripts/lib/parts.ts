import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * Joins the parts of one export (a CUR delivered in several files for the same month and account)
 * into one file, so that they are ingested as one upload: uploads replace by billing source, so
 * parts ingested one by one would replace each other. Each part may be gzipped. CSV parts must
 * share their header line, which is written once; JSON-lines parts are concatenated. Parquet parts
 * are refused. The parts are read in memory. Throws an Error with a one-line reason.
 */
export function joinParts(files: string[], dest: string): void {
  let header: string | undefined;
  let jsonLines: boolean | undefined;
  const out: string[] = [];
  for (const file of files) {
    let bytes: Buffer = readFileSync(file);
    if (bytes.subarray(0, 4).toString('latin1') === 'PAR1')
      throw new Error(
        `${basename(file)} is Parquet: only CSV or JSON-lines parts (gzipped or not) are joined`,
      );
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!text.endsWith('\n')) text += '\n';
    const json = text.trimStart().startsWith('{');
    if (jsonLines !== undefined && json !== jsonLines)
      throw new Error(`${basename(file)} is not in the format of the first part`);
    jsonLines = json;
    if (json) {
      out.push(text);
      continue;
    }
    const end = text.indexOf('\n');
    const line = text.slice(0, end).replace(/\r$/, '');
    if (header === undefined) {
      header = line;
      out.push(`${line}\n`);
    } else if (line !== header)
      throw new Error(`${basename(file)} has another header line than the first part`);
    out.push(text.slice(end + 1));
  }
  writeFileSync(dest, out.join(''));
}
