/**
 * Query-engine benchmark over ~1M generated FOCUS rows (`WAREHOUSE_BENCH_ROWS` to change): four
 * explorer requests through the engine (`runExplorer`), each beside hand-written DuckDB SQL for the
 * same figures on the same database in the same process, and the ratio (ours / hand-written;
 * target ≤ 1.2). The figures of both sides are compared, so the hand SQL really does the same work.
 * Then the p50/p99 of `GET /dashboard-v2/{id}/widgets/{key}/data` on the local stack under
 * autocannon at 10 connections. Figures only: nothing here is asserted by a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { runExplorer } from '../shared/domain/queries/engine';
import type { ExplorerResult } from '../shared/domain/queries/model';
import { ExplorerRequestSchema } from '../shared/model/query-model';
import { query, resetDuckDb, withReadConnection } from '../shared/warehouse/duckdb/database';
import { costQuery as cost, explorerWidget } from '../test/support/explorer';
import {
  alternately,
  benchRows,
  ingestFocus,
  median,
  percentile,
  resourcesFor,
  round,
  startStack,
  timed,
  useDuckDb,
} from './support';

const ORG = 'org_qbench';
const MONTHS = ['2024-07', '2024-08', '2024-09'];
const NOW = new Date('2024-10-02T12:00:00Z');
const RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 7);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);

const WHERE = { combinator: 'and', rules: [{ field: 'charge_category', operator: 'in', value: ['Usage'] }] };
const PERIOD = { startDate: '2024-07-01T00:00:00Z', endDate: '2024-09-30T00:00:00Z', aggBy: 'Day' };
const RANGE = `"ChargePeriodStart" >= TIMESTAMP '2024-07-01' AND "ChargePeriodStart" < TIMESTAMP '2024-10-01'`;

interface Case {
  name: string;
  request: unknown;
  hand: string;
  /** Figures to compare: a map of label → value from each side. */
  ours: (r: ExplorerResult) => Map<string, number>;
  theirs: (rows: Record<string, unknown>[]) => Map<string, number>;
}

function seriesMap(r: ExplorerResult, name: string): Map<string, number> {
  const out = new Map<string, number>();
  const q = r.queries.find((x) => x.name === name);
  for (const s of q?.series ?? [])
    for (const p of s.points)
      if (p.value !== null && p.value !== 0)
        out.set(`${JSON.stringify(Object.values(s.group))}|${p.date}`, p.value);
  return out;
}

function rowsMap(rows: Record<string, unknown>[], groups: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows)
    if (r.value !== null && Number(r.value) !== 0)
      out.set(`${JSON.stringify(groups.map((g) => r[g] ?? null))}|${String(r.day)}`, Number(r.value));
  return out;
}

function sameFigures(a: Map<string, number>, b: Map<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, x] of a) {
    const y = b.get(k);
    if (y === undefined || Math.abs(x - y) > 1e-6 * Math.max(1, Math.abs(x))) return false;
  }
  return true;
}

const CASES: Case[] = [
  {
    name: 'cost by day, one dimension, where clause',
    request: { period: PERIOD, queries: [cost('a', { groupBy: 'provider', whereClause: WHERE })] },
    hand: `SELECT strftime(date_trunc('day', "ChargePeriodStart"), '%Y-%m-%d') AS day, "ProviderName" AS g, sum("BilledCost") AS value
             FROM billing WHERE org_id = '${ORG}' AND ${RANGE} AND "ChargeCategory" = 'Usage' GROUP BY 1, 2`,
    ours: (r) => seriesMap(r, 'a'),
    theirs: (rows) => rowsMap(rows, ['g']),
  },
  {
    name: 'cost by day, two dimensions, where clause (top 100 + Other)',
    request: {
      period: PERIOD,
      queries: [cost('a', { groupBy: ['provider', 'service'], whereClause: WHERE })],
    },
    hand: `WITH d AS (SELECT strftime(date_trunc('day', "ChargePeriodStart"), '%Y-%m-%d') AS day, "ProviderName" AS g0, "ServiceName" AS g1, sum("BilledCost") AS value
                    FROM billing WHERE org_id = '${ORG}' AND ${RANGE} AND "ChargeCategory" = 'Usage' GROUP BY 1, 2, 3),
                top AS (SELECT g0, g1 FROM d GROUP BY 1, 2 ORDER BY sum(value) DESC, g0, g1 LIMIT 100)
           SELECT day, CASE WHEN t.g0 IS NULL THEN 'Other' ELSE d.g0 END AS g0, CASE WHEN t.g0 IS NULL THEN 'Other' ELSE d.g1 END AS g1, sum(value) AS value
             FROM d LEFT JOIN top t ON t.g0 = d.g0 AND t.g1 IS NOT DISTINCT FROM d.g1 GROUP BY 1, 2, 3`,
    ours: (r) => seriesMap(r, 'a'),
    theirs: (rows) => rowsMap(rows, ['g0', 'g1']),
  },
  {
    name: 'formula over two queries (a / b)',
    request: {
      period: PERIOD,
      queries: [
        cost('a', { visible: false }),
        cost('b', { metricId: 'list_cost', visible: false }),
        { type: 'formula', name: 'f', colorIndex: 0, chartType: 'LINE', formula: 'a / b' },
      ],
    },
    hand: `SELECT strftime(date_trunc('day', "ChargePeriodStart"), '%Y-%m-%d') AS day, sum("BilledCost") / nullif(sum("ListCost"), 0) AS value
             FROM billing WHERE org_id = '${ORG}' AND ${RANGE} GROUP BY 1`,
    ours: (r) => seriesMap(r, 'f'),
    theirs: (rows) => rowsMap(rows, []),
  },
  {
    name: '28-day rolling median',
    request: {
      period: { ...PERIOD, startDate: '2024-08-01T00:00:00Z' },
      queries: [
        cost('a', { visible: false }),
        {
          type: 'formula',
          name: 'm',
          colorIndex: 0,
          chartType: 'LINE',
          formula: 'rollingMedian(a, 28, DAY)',
        },
      ],
    },
    hand: `WITH d AS (SELECT date_trunc('day', "ChargePeriodStart") AS t, sum("BilledCost") AS value
                    FROM billing WHERE org_id = '${ORG}' AND "ChargePeriodStart" >= TIMESTAMP '2024-07-05' AND "ChargePeriodStart" < TIMESTAMP '2024-10-01' GROUP BY 1),
                r AS (SELECT t, median(value) OVER (ORDER BY t RANGE BETWEEN INTERVAL 27 DAYS PRECEDING AND CURRENT ROW) AS value FROM d)
           SELECT strftime(t, '%Y-%m-%d') AS day, value FROM r WHERE t >= TIMESTAMP '2024-08-01'`,
    ours: (r) => seriesMap(r, 'm'),
    theirs: (rows) => rowsMap(rows, []),
  },
];

async function engineCases(dir: string, target: number): Promise<Record<string, unknown>> {
  const days = 31 + 31 + 30;
  useDuckDb(dir, 'queries');
  const rows = await ingestFocus(dir, ORG, {
    seed: 1,
    months: MONTHS,
    resourcesPerProvider: resourcesFor(target, days),
    accountPrefix: '3000',
  });
  const out: Record<string, unknown> = { rows };
  for (const c of CASES) {
    const request = v.parse(ExplorerRequestSchema, c.request);
    const ours = () => runExplorer(request, { orgId: ORG, now: NOW });
    // The hand-written side reads through the same connection pool as the engine, so the ratio
    // compares the statements and the engine's work, not connection set-up.
    const hand = () => withReadConnection((conn) => query(conn, c.hand));
    await ours();
    await hand();
    const t = await alternately(RUNS, ours, hand);
    const same = sameFigures(c.ours(t.a[0]!.result), c.theirs(t.b[0]!.result));
    const o = median(t.a.map((x) => x.ms));
    const h = median(t.b.map((x) => x.ms));
    out[c.name] = {
      oursMs: round(o),
      handMs: round(h),
      ratio: round(o / h, 2),
      sameFigures: same,
      target: 1.2,
    };
    process.stdout.write(
      `  ${c.name}: ours ${round(o)} ms, hand ${round(h)} ms, ratio ${round(o / h, 2)}, same ${same}\n`,
    );
  }
  resetDuckDb();
  return out;
}

type Autocannon = (
  opts: Record<string, unknown>,
  cb: (err: unknown, result: Record<string, number>) => void,
) => {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};

export async function widgetLoad(): Promise<Record<string, unknown>> {
  const stack = await startStack();
  try {
    const { baseUrl, apiKeys } = stack.session;
    const headers = { authorization: `Bearer ${apiKeys.admin}`, 'content-type': 'application/json' };
    const created = await fetch(`${baseUrl}/dashboard-v2`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'bench widget data',
        widgets: [
          explorerWidget('w1', 'cost by service', {
            period: { datePreset: 'TRAILING_30_DAYS', aggBy: 'Day' },
            queries: [cost('a', { groupBy: 'service' })],
          }),
        ],
      }),
    });
    const id = String(((await created.json()) as { id: string }).id);
    const url = `${baseUrl}/dashboard-v2/${id}/widgets/w1/data`;
    const sequential: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = await timed(() =>
        fetch(url, { headers }).then(async (r) => [r.status, await r.text()] as const),
      );
      if (t.result[0] !== 200) throw new Error(`widget data failed: ${t.result[0]} ${t.result[1]}`);
      sequential.push(t.ms);
    }
    const sequentialP50 = round(percentile(sequential, 50));
    const autocannon = createRequire(__filename)('autocannon') as Autocannon;
    const run = (duration: number) =>
      new Promise<{ latencies: number[]; non2xx: number; errors: number; requests: number }>(
        (resolve, reject) => {
          const latencies: number[] = [];
          const instance = autocannon({ url, connections: 10, duration, headers }, (err, result) =>
            err
              ? reject(err)
              : resolve({
                  latencies,
                  non2xx: result.non2xx ?? 0,
                  errors: (result.errors ?? 0) + (result.timeouts ?? 0),
                  requests: latencies.length / duration,
                }),
          );
          instance.on('response', (_c, _s, _b, ms) => latencies.push(ms));
        },
      );
    await run(2);
    const r = await run(LOAD_SECONDS);
    const out = {
      sequentialP50Ms: sequentialP50,
      connections: 10,
      seconds: LOAD_SECONDS,
      p50Ms: round(percentile(r.latencies, 50)),
      p99Ms: round(percentile(r.latencies, 99)),
      requestsPerSecond: round(r.requests),
      non2xx: r.non2xx,
      errors: r.errors,
    };
    process.stdout.write(`  widget data: ${JSON.stringify(out)}\n`);
    return out;
  } finally {
    await stack.stop();
  }
}

export default async function queriesBench(): Promise<Record<string, unknown>> {
  const target = benchRows();
  const dir = mkdtempSync(join(tmpdir(), 'q-bench-'));
  try {
    const engine = await engineCases(dir, target);
    const widget = await widgetLoad();
    return { engine, widgetData: widget };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
