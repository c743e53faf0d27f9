import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Test helpers that compute expected figures independently of the code under test: a plain
 * RFC 4180 CSV parser and sums in JavaScript over the parsed rows.
 */
/** The billing samples kept in the repository (see test/fixtures/billing/README.md for source and licence). */
export const SAMPLES = join(__dirname, '..', '..', 'fixtures', 'billing');
export const FOCUS_SAMPLE = join(SAMPLES, 'focus_sample.csv');

export type CsvRow = Record<string, string | null>;

/** Parses CSV text; `NULL` and empty cells become null. */
export function parseCsv(text: string): CsvRow[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < clean.length; i++) {
    const ch = clean[i];
    if (quoted) {
      if (ch === '"' && clean[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && clean[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  const [header, ...data] = rows;
  if (!header) return [];
  return data
    .filter((r) => r.length > 1 || r[0] !== '')
    .map((r) =>
      Object.fromEntries(
        header.map((h, i) => [
          h,
          r[i] === undefined || r[i] === 'NULL' || r[i] === '' ? null : (r[i] as string),
        ]),
      ),
    );
}

export function readCsv(path: string): CsvRow[] {
  return parseCsv(readFileSync(path, 'utf8'));
}

export function num(value: string | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}

/** Sum of `value(row)` per `key(row)`. */
export function sumBy(
  rows: CsvRow[],
  key: (r: CsvRow) => string | null | undefined,
  value: (r: CsvRow) => number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    const k = key(r);
    if (k === null || k === undefined) continue;
    out.set(k, (out.get(k) ?? 0) + value(r));
  }
  return out;
}

/** Tags of a row as parsed JSON with trimmed keys (the documented ingestion rule). */
export function tagsOf(r: CsvRow): Record<string, string> {
  if (!r.Tags) return {};
  const parsed = JSON.parse(r.Tags) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) {
    const key = k.trim();
    if (!key || v === null || v === '' || key in out) continue;
    out[key] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

export function close(a: number, b: number, tolerance = 1e-6): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}
