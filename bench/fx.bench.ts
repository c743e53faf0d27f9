/**
 * Currency conversion overhead in the query engine over ~1M generated FOCUS rows
 * (`WAREHOUSE_BENCH_ROWS` to change): the same explorer requests through `runExplorer` without a
 * currency (figures in the billing currency, USD) and with `EUR` (every row joined to the per-day
 * factors and converted in the statement), and the ratio (converted / plain; target ≤ 1.2). Then
 * once more after a few CAD rows are added two months before the range (`mixedOrg`): the same rows
 * are read, but the org is no longer one-currency, so the statement sums per currency too. The
 * rates are the demo's synthetic file, loaded into a throwaway DynamoDB Local. Each converted
 * figure is checked against the plain one divided by that day's USD rate (daily case), so the
 * converted side really converts. Wall and CPU time (this process's, DuckDB's threads included)
 * are both reported: on a shared machine the CPU ratio is the steadier one. Figures only: nothing
 * here is asserted by a test.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { syntheticRateXml } from '../infra/local/demo-data/fx-synthetic';
import { csvLine, FOCUS_HEADER, generateFocusRows } from '../infra/local/demo-data/generator';
import { startDynamoLocal } from '../infra/local/emulators';
import { parseRateFile } from '../shared/domain/fx/ecb';
import { loadRates } from '../shared/domain/fx/service';
import { runExplorer } from '../shared/domain/queries/engine';
import type { ExplorerResult } from '../shared/domain/queries/model';
import { ExplorerRequestSchema } from '../shared/model/query-model';
import { DuckDbWarehouse } from '../shared/warehouse/duckdb/adapter';
import { resetDuckDb } from '../shared/warehouse/duckdb/database';
import { costQuery as cost } from '../test/support/explorer';
import {
  alternately,
  benchRows,
  ingestFocus,
  median,
  resourcesFor,
  round,
  useDuckDb,
  useDynamoTable,
} from './support';

const ORG = 'org_fxbench';
const MONTHS = ['2024-07', '2024-08', '2024-09'];
const NOW = new Date('2024-10-02T12:00:00Z');
const RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 9);

const PERIOD = { startDate: '2024-07-01T00:00:00Z', endDate: '2024-09-30T00:00:00Z', aggBy: 'Day' };

const CASES = [
  { name: 'dailyCost', request: { period: PERIOD, queries: [cost('a')] } },
  {
    name: 'dailyByServiceTop10',
    request: { period: PERIOD, queries: [cost('a', { groupBy: 'service' })], limitOverride: 10 },
  },
  {
    name: 'monthlyByAccountAndProvider',
    request: {
      period: { ...PERIOD, aggBy: 'Month' },
      queries: [cost('a', { groupBy: ['sub_account', 'provider'] })],
    },
  },
];

/** The daily case's converted figures against plain ÷ the USD rate of the day (last published on or before). */
function converts(plain: ExplorerResult, converted: ExplorerResult, usd: Map<string, number>): boolean {
  const days = [...usd.keys()].sort();
  const rateOn = (day: string) => usd.get(days.filter((d) => d <= day).at(-1)!)!;
  const p = plain.queries[0]!.series[0]!.points;
  const c = converted.queries[0]!.series[0]!.points;
  return p.every((x, i) => {
    const expected = (x.value ?? 0) / rateOn(x.date);
    return Math.abs((c[i]?.value ?? 0) - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  });
}

/** Each case plain and converted, alternately; medians and ratios into `out`. */
async function measure(out: Record<string, unknown>, usd: Map<string, number>): Promise<void> {
  for (const c of CASES) {
    const request = v.parse(ExplorerRequestSchema, c.request);
    const plain = () => runExplorer(request, { orgId: ORG, now: NOW });
    const converted = () => runExplorer(request, { orgId: ORG, now: NOW, currency: 'EUR' });
    await plain();
    await converted();
    const t = await alternately(RUNS, plain, converted);
    const [a, b] = [t.a[0]!.result, t.b[0]!.result];
    const checked = c.name === 'dailyCost' ? converts(a, b, usd) : undefined;
    if (b.conversion?.to !== 'EUR') throw new Error('the converted side did not convert');
    const p = median(t.a.map((x) => x.ms));
    const k = median(t.b.map((x) => x.ms));
    const pc = median(t.a.map((x) => x.cpuMs));
    const kc = median(t.b.map((x) => x.cpuMs));
    out[c.name] = {
      plainMs: round(p),
      convertedMs: round(k),
      ratio: round(k / p, 2),
      plainCpuMs: round(pc),
      convertedCpuMs: round(kc),
      cpuRatio: round(kc / pc, 2),
      target: 1.2,
      ...(checked !== undefined ? { figuresChecked: checked } : {}),
    };
    process.stdout.write(
      `  ${c.name}: plain ${round(p)} ms, converted ${round(k)} ms, ratio ${round(k / p, 2)}; CPU ${round(pc)} / ${round(kc)} ms, ratio ${round(kc / pc, 2)}\n`,
    );
  }
}

export default async function fxBench(): Promise<Record<string, unknown>> {
  const target = benchRows();
  const dir = mkdtempSync(join(tmpdir(), 'cms-fx-bench-'));
  const dynamo = await startDynamoLocal({});
  try {
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    });
    useDuckDb(dir, 'fx');
    await useDynamoTable(dynamo.endpoint, 'fx-bench');
    const xml = syntheticRateXml('2024-06-01', '2024-10-02');
    await loadRates(xml);
    const usd = new Map(parseRateFile(xml).days.map((d) => [d.day, d.rates.USD!]));

    const rows = await ingestFocus(dir, ORG, {
      seed: 1,
      months: MONTHS,
      resourcesPerProvider: resourcesFor(target, 92),
      accountPrefix: '3100',
    });
    const out: Record<string, unknown> = {
      rows,
      convertedTo: 'EUR (every row, from USD)',
      loadAverage1mAtStart: round(loadavg()[0] ?? 0, 1),
    };
    await measure(out, usd);
    // An April file billed in CAD (outside the range and the month before it, so the answers are
    // unchanged): the org now has two currencies.
    const cad = join(dir, 'cad.csv');
    const lines = [FOCUS_HEADER.map((h) => `"${h}"`).join(',')];
    for (const r of generateFocusRows({
      seed: 2,
      months: ['2024-04'],
      resourcesPerProvider: 1,
      accountPrefix: '3200',
    }))
      lines.push(csvLine({ ...r, BillingCurrency: 'CAD' }));
    writeFileSync(cad, `${lines.join('\n')}\n`);
    await new DuckDbWarehouse().ingestFile({ orgId: ORG, path: cad, sourceName: 'cad.csv' });
    process.stdout.write('  mixed-currency organisation (same rows in the range):\n');
    const mixed: Record<string, unknown> = {
      note: 'a CAD file for 2024-04 beside the USD rows: per-currency path',
    };
    await measure(mixed, usd);
    out.mixedOrg = mixed;
    out.loadAverage1mAtEnd = round(loadavg()[0] ?? 0, 1);
    return out;
  } finally {
    resetDuckDb();
    await dynamo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
