/**
 * Budget status against one hand-written SQL query (issue 28: at most 1.3×): ~1M generated FOCUS
 * rows (`WAREHOUSE_BENCH_ROWS` to change) over the six months before `NOW`; a budget of 50 lines
 * (the 50 biggest resources of the month, `groupBy: resource_id`) whose status (`statusOf`: the
 * engine's daily actuals per line, the `Other` line, and each line's month-end forecast) is timed
 * against the one query that computes the same daily actuals per line by hand, alternately in the
 * same process on the same database. The month-to-date actuals of both sides are compared. Figures
 * only: nothing here is asserted by a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Budget } from '../shared/domain/budgets/model';
import { STATUS_HISTORY_DAYS, statusOf } from '../shared/domain/budgets/status';
import { query, resetDuckDb, withReadConnection } from '../shared/warehouse/duckdb/database';
import { alternately, ingestFocus, median, round, useDuckDb } from './support';

const ORG = 'org_budbench';
const MONTHS = ['2024-04', '2024-05', '2024-06', '2024-07', '2024-08', '2024-09'];
const NOW = new Date('2024-09-20T12:00:00Z');
const MONTH = '2024-09';
const RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 5);
const LINES = 50;

export default async function budgetsBench(): Promise<Record<string, unknown>> {
  const target = Number(process.env.WAREHOUSE_BENCH_ROWS ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'budgets-bench-'));
  try {
    useDuckDb(dir, 'budgets');
    const rows = await ingestFocus(dir, ORG, {
      seed: 28,
      months: MONTHS,
      resourcesPerProvider: Math.ceil(target / 183 / 2),
      accountPrefix: '5000',
      until: '2024-09-19',
    });
    const top = (await withReadConnection((conn) =>
      query(
        conn,
        `SELECT "ResourceId" AS r FROM billing WHERE org_id = '${ORG}' AND "ChargePeriodStart" >= TIMESTAMP '${MONTH}-01'
         GROUP BY 1 ORDER BY sum("BilledCost") DESC, 1 LIMIT ${LINES}`,
      ),
    )) as { r: string }[];
    const at = NOW.toISOString();
    const budget: Budget = {
      id: 'bud_bench',
      organizationId: ORG,
      name: 'Bench',
      description: '',
      currency: 'USD',
      metricId: 'cost',
      scopeId: null,
      whereClause: null,
      groupBy: 'resource_id',
      startMonth: MONTH,
      lines: top.map((t) => ({ value: t.r, owner: null, amounts: { [MONTH]: 1000 } })),
      versionId: 'bver_bench',
      versionNumber: 1,
      createdById: 'bench',
      createdAt: at,
      updatedById: 'bench',
      updatedAt: at,
      archivedAt: null,
    };
    const from = new Date(Date.parse(`${MONTH}-01T00:00:00Z`) - STATUS_HISTORY_DAYS * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const inList = top.map((t) => `'${t.r.replaceAll("'", "''")}'`).join(', ');
    const handSql = `SELECT strftime(date_trunc('day', "ChargePeriodStart"), '%Y-%m-%d') AS day,
        CASE WHEN "ResourceId" IN (${inList}) THEN "ResourceId" ELSE 'Other' END AS line, sum("BilledCost") AS value
      FROM billing WHERE org_id = '${ORG}' AND "ChargePeriodStart" >= TIMESTAMP '${from}'
        AND "ChargePeriodStart" < TIMESTAMP '2024-10-01' GROUP BY 1, 2`;
    const ours = () => statusOf(budget, MONTH, 'UTC', NOW);
    const hand = () =>
      withReadConnection((conn) => query(conn, handSql)) as Promise<Record<string, unknown>[]>;
    await ours();
    await hand();
    const t = await alternately(RUNS, ours, hand);
    const st = t.a[0]!.result.status;
    const dataThrough = st.dataThrough;
    const mtd = new Map<string, number>();
    for (const r of t.b[0]!.result)
      if (String(r.day) >= `${MONTH}-01` && String(r.day) <= (dataThrough ?? ''))
        mtd.set(String(r.line), (mtd.get(String(r.line)) ?? 0) + Number(r.value));
    const same = st.lines.every(
      (l) => Math.abs((mtd.get(l.value ?? '') ?? 0) - l.actual) < 1e-6 * Math.max(1, l.actual),
    );
    const o = median(t.a.map((x) => x.ms));
    const h = median(t.b.map((x) => x.ms));
    process.stdout.write(
      `  budget status: ours ${round(o)} ms, hand ${round(h)} ms, ratio ${round(o / h, 2)}, same ${same}\n`,
    );
    resetDuckDb();
    return {
      rows,
      lines: LINES,
      dataThrough,
      statusMs: round(o),
      handMs: round(h),
      ratio: round(o / h, 2),
      sameActuals: same,
      target: 1.3,
      method: `statusOf (engine actuals per line + Other, ${LINES + 2} month-end forecasts) vs one hand SQL of the same daily actuals per line, ${RUNS} alternating runs, medians`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
