import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { runExplorer } from '../../../shared/domain/queries/engine';
import type { ExplorerResult, QueryOut } from '../../../shared/domain/queries/model';
import { ExplorerRequestSchema } from '../../../shared/model/query-model';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { costQuery as cost, queryNamed as only } from '../../support/explorer';
import { type CsvRow, close, FOCUS_SAMPLE, num, parseCsv, tagsOf } from '../warehouse/support';

/**
 * The engine over every FOCUS file of test/fixtures/billing (the real `focus_sample.csv`) and over
 * the same rows written the way other exports write them: a UTF-8 BOM, CRLF line ends, the columns
 * in another order, empty cells in the nullable cost columns, `NULL` and empty strings mixed. Each
 * figure is checked against sums computed here from the raw rows of the file ingested (parsed by
 * the test's own CSV reader), never against the engine's SQL.
 */
const warehouse = new DuckDbWarehouse();
const run = Date.now().toString(36);
const dir = mkdtempSync(join(tmpdir(), 'focus-files-'));
const now = new Date('2024-10-20T12:00:00Z');

function quote(cell: string | null, nullAs: string): string {
  if (cell === null) return nullAs;
  return /[",\r\n]/.test(cell) || cell === '' ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/**
 * The sample's rows as another export would write them: BOM, CRLF, reversed column order, every
 * 9th row's EffectiveCost and every 11th row's ListCost an empty cell, nulls as empty cells on
 * even rows and `NULL` on odd ones. `emptyBilled` empties one BilledCost cell (a file ingestion
 * refuses: every row needs a BilledCost, docs/warehouse.md).
 */
function exportLike(rows: CsvRow[], emptyBilled = false): string {
  const header = Object.keys(rows[0] ?? {}).reverse();
  const lines = [header.map((h) => quote(h, '')).join(',')];
  rows.forEach((r, i) => {
    const cells = header.map((h) => {
      if (h === 'EffectiveCost' && i % 9 === 4) return '';
      if (h === 'ListCost' && i % 11 === 3) return '';
      if (h === 'BilledCost' && emptyBilled && i === 5) return '';
      return quote(r[h] ?? null, i % 2 ? 'NULL' : '');
    });
    lines.push(cells.join(','));
  });
  return `\ufeff${lines.join('\r\n')}\r\n`;
}

interface File {
  label: string;
  orgId: string;
  rows: CsvRow[];
}
const files: File[] = [];

beforeAll(async () => {
  const raw = readFileSync(FOCUS_SAMPLE, 'utf8');
  const variant = exportLike(parseCsv(raw));
  const variantPath = join(dir, 'focus_export_like.csv');
  writeFileSync(variantPath, variant);
  for (const [label, path, text] of [
    ['focus_sample.csv', FOCUS_SAMPLE, raw],
    ['focus_sample.csv as BOM + CRLF + reordered columns + empty cost cells', variantPath, variant],
  ] as const) {
    const orgId = `org_focus_${files.length}_${run}`;
    await warehouse.ingestFile({ orgId, path, sourceName: 'focus.csv' });
    files.push({ label, orgId, rows: parseCsv(text) });
  }
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('refuses, whole, a file with an empty BilledCost cell (FOCUS: BilledCost is never null)', async () => {
  const path = join(dir, 'empty_billed.csv');
  writeFileSync(path, exportLike(parseCsv(readFileSync(FOCUS_SAMPLE, 'utf8')), true));
  await expect(
    warehouse.ingestFile({ orgId: `org_focus_bad_${run}`, path, sourceName: 'bad.csv' }),
  ).rejects.toThrow('Row 6 (line 7), column BilledCost: is empty, but every row needs a value');
});

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const billed = (r: CsvRow) => num(r.BilledCost);
const september = { startDate: '2024-09-01T00:00:00Z', endDate: '2024-09-30T00:00:00Z' };

function ask(file: File, request: unknown): Promise<ExplorerResult> {
  return runExplorer(v.parse(ExplorerRequestSchema, request), { orgId: file.orgId, now });
}

function expectClose(actual: number | null | undefined, expected: number, what: string) {
  if (!close(actual ?? Number.NaN, expected, 1e-9))
    throw new Error(`${what}: got ${actual}, expected ${expected}`);
}

function sums(rows: CsvRow[], key: (r: CsvRow) => string | null, value: (r: CsvRow) => number) {
  const out = new Map<string, number>();
  for (const r of rows) {
    const k = JSON.stringify(key(r));
    out.set(k, (out.get(k) ?? 0) + value(r));
  }
  return out;
}

/** Every series of a grouped answer equals the sums by `key`, and no group is missing. */
function expectGroups(out: QueryOut, dimension: string, expected: Map<string, number>, what: string) {
  const got = new Map(out.series.map((s) => [JSON.stringify(s.group[dimension] ?? null), s.total]));
  expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [k, total] of expected) expectClose(got.get(k), total, `${what} ${k}`);
}

describe.each([0, 1])('the engine over FOCUS file #%i', (index) => {
  const file = () => files[index] as File;

  it('answers cost by day equal to the raw rows, credits included', async () => {
    const { rows } = file();
    expect(rows).toHaveLength(1000);
    expect(rows.some((r) => billed(r) < 0)).toBe(true);
    const res = await ask(file(), { period: { ...september, aggBy: 'Day' }, queries: [cost('a')] });
    const points = only(res, 'a').series[0]?.points ?? [];
    expect(points).toHaveLength(30);
    const byDay = sums(rows, day, billed);
    for (const p of points)
      expectClose(p.value, byDay.get(JSON.stringify(p.date)) ?? 0, `${file().label} ${p.date}`);
    expectClose(
      only(res, 'a').total,
      rows.reduce((a, r) => a + billed(r), 0),
      `${file().label} total`,
    );
  });

  it('answers cost by service, effective cost by provider and list cost by region, every group present', async () => {
    const { rows } = file();
    const res = await ask(file(), {
      period: { ...september, aggBy: 'Period' },
      limitOverride: 1000,
      queries: [
        cost('a', { groupBy: 'service' }),
        cost('b', { groupBy: 'provider', metricId: 'effective_cost' }),
        cost('c', { groupBy: 'region', metricId: 'list_cost' }),
      ],
    });
    const expected: [
      query: string,
      dimension: string,
      key: (r: CsvRow) => string | null,
      value: (r: CsvRow) => number,
    ][] = [
      ['c', 'region', (r) => r.RegionId ?? null, (r) => num(r.ListCost)],
      ['a', 'service', (r) => r.ServiceName ?? null, billed],
      ['b', 'provider', (r) => r.ProviderName ?? null, (r) => num(r.EffectiveCost)],
    ];
    for (const [query, dimension, key, value] of expected)
      expectGroups(only(res, query), dimension, sums(rows, key, value), dimension);
  });

  it('groups by a tag from the Tags JSON, with null for rows without it, under a where clause', async () => {
    const { rows } = file();
    const where = {
      combinator: 'and',
      rules: [
        { field: 'provider', operator: 'in', value: ['AWS', 'Microsoft'] },
        {
          combinator: 'or',
          rules: [
            { field: 'charge_category', operator: 'notIn', value: ['Tax'] },
            { field: 'tag:business_unit', operator: 'notNull', value: [] },
          ],
        },
      ],
    };
    const res = await ask(file(), {
      period: { ...september, aggBy: 'Period' },
      limitOverride: 1000,
      queries: [cost('a', { groupBy: 'tag:environment', whereClause: where })],
    });
    const kept = rows.filter(
      (r) =>
        (r.ProviderName === 'AWS' || r.ProviderName === 'Microsoft') &&
        (r.ChargeCategory !== 'Tax' || tagsOf(r).business_unit !== undefined),
    );
    expect(kept.length).toBeLessThan(rows.length);
    const expected = sums(kept, (r) => tagsOf(r).environment ?? null, billed);
    expect(expected.has('null')).toBe(true);
    expectGroups(only(res, 'a'), 'tag:environment', expected, 'tag:environment');
  });

  it('filters on a tag key some rows also write with a leading space, on an upper-case Oracle service and on a text prefix', async () => {
    const { rows } = file();
    const res = await ask(file(), {
      period: { ...september, aggBy: 'Period' },
      queries: [
        cost('a', {
          whereClause: { combinator: 'and', rules: [{ field: 'tag:org', operator: 'notNull', value: [] }] },
        }),
        cost('b', {
          whereClause: {
            combinator: 'or',
            rules: [
              { field: 'service', operator: 'beginsWith', value: ['Amazon'] },
              { field: 'provider', operator: 'in', value: ['Oracle'] },
            ],
          },
        }),
        cost('c', {
          whereClause: { combinator: 'and', rules: [{ field: 'region', operator: 'notNull', value: [] }] },
        }),
      ],
    });
    const total = (f: (r: CsvRow) => boolean) => rows.filter(f).reduce((a, r) => a + billed(r), 0);
    expectClose(
      only(res, 'a').total,
      // `"org"` only: `" org"` (23 rows, 21 of them beside `"org"`) is a key of its own.
      total((r) => tagsOf(r).org !== undefined),
      'tag org',
    );
    expectClose(
      only(res, 'b').total,
      total((r) => String(r.ServiceName ?? '').startsWith('Amazon') || r.ProviderName === 'Oracle'),
      'Amazon or Oracle',
    );
    expectClose(
      only(res, 'c').total,
      total((r) => r.RegionId !== null),
      'with a region',
    );
  });
});
