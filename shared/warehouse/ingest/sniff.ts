import { closeSync, openSync, readSync } from 'node:fs';
import { constants, gunzipSync } from 'node:zlib';
import { IngestRejected } from './errors';
import { manifestGivenAsData, readManifestFile } from './manifest';
import { ACCEPTED_FORMATS } from './native';

export type FileFormat = 'csv' | 'csv.gz' | 'parquet' | 'jsonl' | 'jsonl.gz';

const HEAD_BYTES = 64 * 1024;

/** The first bytes of a file (up to 64 KiB). */
function head(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** The start of a gzip stream, decompressed as far as the bytes at hand allow. */
function gunzipHead(bytes: Buffer): Buffer {
  try {
    return gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    throw new IngestRejected('The file is gzip-compressed but could not be decompressed.');
  }
}

/** True when the bytes are not text: NUL bytes, or more than 1% control characters. */
function binary(text: Buffer): boolean {
  let control = 0;
  for (const b of text) {
    if (b === 0) return true;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) control++;
  }
  return control > text.length / 100;
}

/**
 * The file's format from its first bytes: Parquet (`PAR1`), gzip, JSON lines (starts with `{`)
 * or CSV. An empty file, a binary file and a JSON document that is not JSON lines are refused here
 * with one plain sentence, before the engine sees them.
 */
export function sniffFormat(path: string): FileFormat {
  const bytes = head(path);
  if (bytes.length >= 4 && bytes.toString('latin1', 0, 4) === 'PAR1') return 'parquet';
  const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  const body = gzip ? gunzipHead(bytes) : bytes;
  if (body.length >= 2 && ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)))
    throw new IngestRejected('The file is UTF-16 text: save it as UTF-8 CSV and upload it again.');
  let start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  while (start < body.length && /\s/.test(String.fromCharCode(body[start] as number))) start++;
  if (start >= body.length) throw new IngestRejected('The file is empty.');
  if (binary(body))
    throw new IngestRejected(`The file is not a billing export (it is not text); ${ACCEPTED_FORMATS}.`);
  const first = String.fromCharCode(body[start] as number);
  if (first === '{') {
    const manifest = gzip ? undefined : readManifestFile(path);
    if (manifest) throw new IngestRejected(manifestGivenAsData(manifest.kind), { code: 'MANIFEST_AS_DATA' });
    return gzip ? 'jsonl.gz' : 'jsonl';
  }
  if (first === '[')
    throw new IngestRejected(
      'The file is a JSON document, not JSON lines (one object per line, as the BigQuery billing export writes).',
    );
  return gzip ? 'csv.gz' : 'csv';
}

/** The first record of a JSON lines file, read from its first bytes. */
export function firstJsonRecord(path: string, format: 'jsonl' | 'jsonl.gz'): Record<string, unknown> {
  const bytes = head(path);
  const text = (format === 'jsonl.gz' ? gunzipHead(bytes) : bytes).toString('utf8').replace(/^\ufeff/, '');
  const line = text.trimStart().split('\n')[0] ?? '';
  try {
    const parsed = JSON.parse(line) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // refused below
  }
  throw new IngestRejected(
    'The file starts like JSON, but its first line is not one JSON object (JSON lines).',
  );
}

/** Dotted names of a JSON record's fields, one level of nesting deep (`service.description`). */
export function jsonFieldNames(record: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    names.push(key);
    if (value && typeof value === 'object' && !Array.isArray(value))
      for (const inner of Object.keys(value)) names.push(`${key}.${inner}`);
  }
  return names;
}

/**
 * The column names of a CSV file's first line as written (RFC 4180 quoting, BOM dropped), read
 * from its first bytes; undefined when the line does not end within them.
 */
export function csvHeaderNames(path: string, format: 'csv' | 'csv.gz'): string[] | undefined {
  const bytes = head(path);
  const text = (format === 'csv.gz' ? gunzipHead(bytes) : bytes).toString('utf8').replace(/^\ufeff/, '');
  const names: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      names.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      names.push(cell);
      return names;
    } else cell += ch;
  }
  return undefined;
}
