import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GeneratorOptions, writeFocusCsv } from '../../../infra/local/demo-data/generator';
import type { WarehousePort, WarehouseQueries } from '../../../shared/warehouse/port';

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

/** Tags of a row as parsed JSON, keys exactly as exported (the documented ingestion rule). */
export function tagsOf(r: CsvRow): Record<string, string> {
  if (!r.Tags) return {};
  const parsed = JSON.parse(r.Tags) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(parsed)) {
    if (!key || v === null || v === '') continue;
    out[key] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

export function close(a: number, b: number, tolerance = 1e-6): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}

export const CUR_SAMPLE = join(SAMPLES, 'aws_cur_sample-anonymous-aws-export-dataset.csv');
export const AZURE_SAMPLE = join(SAMPLES, 'azure_ea_sample-anonymous-ea-export-dataset.csv');
/** The one payer account of the CUR sample. */
export const CUR_PAYER = '123412340534';

/**
 * Text edits of the real provider samples, for uploads of several billing sources in one month.
 * The Azure EA sample is September 2023 and the CUR sample November 2023.
 */
export const sampleEdits = {
  /** The Azure sample moved to November 2023 (its only dates are 9/1, 9/2 and 9/30). */
  azureInNovember: (text: string) =>
    text
      .replaceAll('9/1/2023', '11/1/2023')
      .replaceAll('9/2/2023', '11/2/2023')
      .replaceAll('9/30/2023', '11/30/2023'),
  /** The CUR of another payer account (the sample's account id replaced everywhere). */
  curOfPayer: (payer: string) => (text: string) => text.replaceAll(CUR_PAYER, payer),
  /** A corrected CUR: its header and first `n` data lines (the sample has no multi-line cells). */
  curFirstRows: (n: number) => (text: string) =>
    `${text
      .split('\n')
      .slice(0, n + 1)
      .join('\n')}\n`,
};

/** Writes `edit(sample text)` to `dir/name` and answers its path and parsed rows. */
export function sampleVariant(
  dir: string,
  name: string,
  sample: string,
  ...edits: ((text: string) => string)[]
): { path: string; rows: CsvRow[] } {
  const text = edits.reduce((t, edit) => edit(t), readFileSync(sample, 'utf8'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return { path, rows: parseCsv(text) };
}

/**
 * The exports of the billing-source suites, written to `dir`: the CUR sample (November 2023), the
 * Azure sample moved to November, a corrected CUR (its first 500 lines) and the first 300 lines
 * of the CUR of a second payer account.
 */
export function billingSourceSamples(dir: string) {
  return {
    cur: sampleVariant(dir, 'cur.csv', CUR_SAMPLE),
    azure: sampleVariant(dir, 'azure-nov.csv', AZURE_SAMPLE, sampleEdits.azureInNovember),
    corrected: sampleVariant(dir, 'cur-corrected.csv', CUR_SAMPLE, sampleEdits.curFirstRows(500)),
    secondPayer: sampleVariant(
      dir,
      'cur-payer-2.csv',
      CUR_SAMPLE,
      sampleEdits.curOfPayer('999988887777'),
      sampleEdits.curFirstRows(300),
    ),
  };
}

/** Raw sums of the CUR's `lineItem/UnblendedCost` (its BilledCost) per usage day. */
export function curDaily(rows: CsvRow[]): Map<string, number> {
  return sumBy(
    rows,
    (r) => r['lineItem/UsageStartDate']?.slice(0, 10),
    (r) => num(r['lineItem/UnblendedCost']),
  );
}

/** Raw sums of the Azure EA's `CostInBillingCurrency` (its BilledCost) per `Date` (M/D/YYYY). */
export function azureDaily(rows: CsvRow[]): Map<string, number> {
  return sumBy(
    rows,
    (r) => {
      const [m, d, y] = (r.Date ?? '').split('/');
      return `${y}-${m?.padStart(2, '0')}-${d?.padStart(2, '0')}`;
    },
    (r) => num(r.CostInBillingCurrency),
  );
}

/** `sums` with keys `prefix|key`. */
export function prefixed(prefix: string, sums: Map<string, number>): [string, number][] {
  return [...sums].map(([day, v]) => [`${prefix}|${day}`, v]);
}

/** `actual` holds exactly the keys of `expected` (summed per key), each close to its sum. */
export function expectSums(actual: Map<string, number>, expected: [string, number][]) {
  const want = new Map<string, number>();
  for (const [k, v] of expected) want.set(k, (want.get(k) ?? 0) + v);
  // Every series the warehouse answers is expected, and every expected sum is answered.
  expect([...actual.keys()].filter((k) => !want.has(k))).toEqual([]);
  for (const [k, v] of want)
    if (!close(actual.get(k) ?? 0, v, 1e-9)) throw new Error(`${k}: got ${actual.get(k)}, expected ${v}`);
}

/** The `cost` (or `effective_cost`) per `day|service` through the warehouse port, as a user's query sees it. */
export async function dailyByService(
  warehouse: Pick<WarehouseQueries, 'costSeries'>,
  orgId: string,
  metricId: 'cost' | 'effective_cost' = 'cost',
): Promise<Map<string, number>> {
  const rows = await warehouse.costSeries({
    orgId,
    metricId,
    groupBy: 'service',
    granularity: 'Day',
    start: '2000-01-01',
    end: '2100-01-01',
  });
  const out = new Map<string, number>();
  for (const r of rows) {
    const key = `${r.period.slice(0, 10)}|${r.group.service}`;
    out.set(key, (out.get(key) ?? 0) + r.value);
  }
  return out;
}

/** November 2023's cost per `provider|day` through the warehouse port (the CUR sample's month). */
export async function novemberByProvider(
  warehouse: Pick<WarehouseQueries, 'costSeries'>,
  orgId: string,
): Promise<Map<string, number>> {
  const rows = await warehouse.costSeries({
    orgId,
    metricId: 'cost',
    groupBy: 'provider',
    granularity: 'Day',
    start: '2023-11-01',
    end: '2023-12-01',
  });
  return new Map(rows.map((r) => [`${Object.values(r.group).join('|')}|${r.period}`, r.value]));
}

/** The 2024 cost per value of `groupBy` (`''` for rows without one) through the warehouse port. */
export async function totals2024By(
  warehouse: Pick<WarehouseQueries, 'costSeries'>,
  orgId: string,
  groupBy: string,
): Promise<Map<string, number>> {
  const rows = await warehouse.costSeries({
    orgId,
    metricId: 'cost',
    groupBy,
    granularity: 'Month',
    start: '2024-01-01',
    end: '2025-01-01',
  });
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.group[groupBy] ?? '', (out.get(r.group[groupBy] ?? '') ?? 0) + r.value);
  return out;
}

/** The dimensions every organisation has from its billing rows alone, before any label is published. */
export const BUILT_IN_DIMENSIONS = [
  'provider',
  'service',
  'service_category',
  'region',
  'sub_account',
  'resource_type',
  'charge_category',
];

/** Ingests the real FOCUS sample for `orgId` and checks what the engine says of it: 1000 rows, two months. */
export async function ingestFocusSample(
  warehouse: Pick<WarehousePort, 'ingestFile'>,
  orgId: string,
): Promise<void> {
  const { conformance, ...rest } = await warehouse.ingestFile({
    orgId,
    path: FOCUS_SAMPLE,
    sourceName: 'focus_sample.csv',
  });
  expect(rest).toEqual({ format: 'focus', rows: 1000, months: ['2024-09', '2024-10'] });
  expect(conformance?.rows).toBe(1000);
}

/**
 * Writes a generated FOCUS export (the demo generator with `options`) as `gen.csv` in a fresh
 * temporary folder, ingests it for `orgId`, and answers its rows as this file's parser reads them.
 */
export async function ingestGenerated(
  warehouse: Pick<WarehousePort, 'ingestFile'>,
  orgId: string,
  options: GeneratorOptions,
): Promise<CsvRow[]> {
  const path = join(mkdtempSync(join(tmpdir(), 'generated-')), 'gen.csv');
  await writeFocusCsv(path, options);
  const rows = readCsv(path);
  await warehouse.ingestFile({ orgId, path, sourceName: 'gen.csv' });
  return rows;
}

/** `actual` holds exactly the keys of `expected`, each within `tolerance` (relative) of its value. */
export function expectSameSums(actual: Map<string, number>, expected: Map<string, number>, tolerance = 1e-9) {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [k, v] of expected)
    if (!close(actual.get(k) ?? Number.NaN, v, tolerance))
      throw new Error(`${k}: got ${actual.get(k)}, expected ${v}`);
}
