import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MANIFEST_LABEL, parseManifest } from './manifest';

/**
 * The text with every CRLF line end outside quoted cells written as LF. Line breaks inside a
 * quoted cell are cell content and stay as they are. Splitting on `"` puts the text outside quotes
 * at the even positions (a doubled `""` inside a cell gives an empty odd part, which keeps the
 * count right).
 */
export function lfLineEnds(text: string): string {
  if (!text.includes('\r')) return text;
  const parts = text.split('"');
  for (let i = 0; i < parts.length; i += 2) parts[i] = (parts[i] as string).replaceAll('\r\n', '\n');
  return parts.join('"');
}

/**
 * Joins the parts of one export (a CUR delivered in several files for the same month and account)
 * into one file, so that they are ingested as one upload: uploads replace by billing source, so
 * parts ingested one by one would replace each other. Used by `npm run ingest` for several files
 * or a CUR manifest, and by the billing-ingest worker for a manifest's parts.
 *
 * Each part may be gzipped. CSV parts must share their header line, which is written once; line
 * ends are written LF whatever each part used (CRLF, LF, or a mix of parts), since a CSV reader
 * sniffs one line end for the whole file. JSON-lines parts are concatenated. Parquet parts are
 * refused. The parts are read in memory. Throws an Error with a one-line reason.
 */
export function joinParts(
  files: string[],
  dest: string,
  names: string[] = files.map((f) => basename(f)),
): void {
  let header: string | undefined;
  let jsonLines: boolean | undefined;
  const out: string[] = [];
  files.forEach((file, i) => {
    const name = names[i] ?? basename(file);
    let bytes: Buffer = readFileSync(file);
    if (bytes.subarray(0, 4).toString('latin1') === 'PAR1')
      throw new Error(`${name} is Parquet: only CSV or JSON-lines parts (gzipped or not) are joined`);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const json = text.trimStart().startsWith('{');
    const manifest = json ? parseManifest(text) : undefined;
    if (manifest)
      throw new Error(`${name} is an ${MANIFEST_LABEL[manifest.kind]}, not a part: give the manifest alone`);
    if (jsonLines !== undefined && json !== jsonLines)
      throw new Error(`${name} is not in the format of the first part`);
    jsonLines = json;
    text = lfLineEnds(text);
    if (!text.endsWith('\n')) text += '\n';
    if (json) {
      out.push(text);
      return;
    }
    const end = text.indexOf('\n');
    const line = text.slice(0, end);
    if (header === undefined) {
      header = line;
      out.push(`${line}\n`);
    } else if (line !== header) throw new Error(`${name} has another header line than the first part`);
    out.push(text.slice(end + 1));
  });
  writeFileSync(dest, out.join(''));
}
