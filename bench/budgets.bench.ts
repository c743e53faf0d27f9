/**
 * Budget status against one hand-written SQL query (issue 28: at most 1.3×): ~1M generated FOCUS
 * rows (`WAREHOUSE_BENCH_ROWS` to change) over the six months before `NOW`; a budget of 50 lines
 * (the 50 biggest resources of the month, `groupBy: resource_id`) whose status (`statusOf`: the
 * engine's daily actuals per line, the `Other` line, and each line's month-end forecast) is timed
 * against the one query that computes the same daily actuals per line by hand, alternately in the
 * same process on the same database: cold (the status cache emptied: both scans and every
 * forecast) and warm (the same budget asked again on the same data: one ungrouped scan). The
 * month-to-date actuals of both sides are compared. Figures only: nothing here is asserted by a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearStatusCache, STATUS_HISTORY_DAYS, statusOf } from '../shared/domain/budgets/status';
import { query, resetDuckDb, withReadConnection } from '../shared/warehouse/duckdb/database';
import {
  benchBudget,
  benchRows,
  focusDuckDb,
  median,
  resourcesFor,
  round,
  timed,
  topResources,
} from './support';

const ORG = 'org_budbench';
const MONTHS = ['2024-04', '2024-05', '2024-06', '2024-07', '2024-08', '2024-09'];
const NOW = new Date('2024-09-20T12:00:00Z');
const MONTH = '2024-09';
const RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 5);
const LINES = 50;

export default async function budgetsBench(): Promise<Record<string, unknown>> {
  const target = benchRows();
  const dir = mkdtempSync(join(tmpdir(), 'budgets-bench-'));
  try {
    const rows = await focusDuckDb(dir, 'budgets', ORG, {
      seed: 28,
      months: MONTHS,
      resourcesPerProvider: resourcesFor(target, 183),
      accountPrefix: '5000',
      until: '2024-09-19',
    });
    const top = await topResources(ORG, MONTH, LINES);
    const at = NOW.toISOString();
    const budget = benchBudget(
      ORG,
      'bud_bench',
      MONTH,
      top.map((t) => ({ value: t.r, amount: 1000 })),
      at,
    );
    const from = new Date(Date.parse(`${MONTH}-01T00:00:00Z`) - STATUS_HISTORY_DAYS * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const inList = top.map((t) => `'${t.r.replaceAll("'", "''")}'`).join(', ');
    const handSql = `SELECT strftime(date_trunc('day', "ChargePeriodStart"), '%Y-%m-%d') AS day,
        CASE WHEN "ResourceId" IN (${inList}) THEN "ResourceId" ELSE 'Other' END AS line, sum("BilledCost") AS value
      FROM billing WHERE org_id = '${ORG}' AND "ChargePeriodStart" >= TIMESTAMP '${from}'
        AND "ChargePeriodStart" < TIMESTAMP '2024-10-01' GROUP BY 1, 2`;
    const ours = () => statusOf(budget, MONTH, 'UTC', NOW);
    const cold = () => {
      clearStatusCache();
      return ours();
    };
    const hand = () =>
      withReadConnection((conn) => query(conn, handSql)) as Promise<Record<string, unknown>[]>;
    await cold();
    await hand();
    const coldMs: number[] = [];
    const warmMs: number[] = [];
    const handMs: number[] = [];
    let same = true;
    let dataThrough: string | null = null;
    for (let i = 0; i < RUNS; i++) {
      // Alternating order: cold, hand, warm; then hand, cold, warm.
      const first = i % 2 === 0;
      const a = first ? await timed(cold) : undefined;
      const b = await timed(hand);
      const c = a ?? (await timed(cold));
      const w = await timed(ours);
      coldMs.push(c.ms);
      warmMs.push(w.ms);
      handMs.push(b.ms);
      if (i === 0) {
        const mtd = new Map<string, number>();
        dataThrough = c.result.status.dataThrough;
        for (const r of b.result)
          if (String(r.day) >= `${MONTH}-01` && String(r.day) <= (dataThrough ?? ''))
            mtd.set(String(r.line), (mtd.get(String(r.line)) ?? 0) + Number(r.value));
        same = [c, w].every((x) =>
          x.result.status.lines.every(
            (l) => Math.abs((mtd.get(l.value ?? '') ?? 0) - l.actual) < 1e-6 * Math.max(1, l.actual),
          ),
        );
      }
    }
    const o = median(warmMs);
    const k = median(coldMs);
    const h = median(handMs);
    process.stdout.write(
      `  budget status: warm ${round(o)} ms, cold ${round(k)} ms, hand ${round(h)} ms, ratio warm ${round(o / h, 2)}, cold ${round(k / h, 2)}, same ${same}\n`,
    );
    resetDuckDb();
    return {
      rows,
      lines: LINES,
      dataThrough,
      statusMs: round(o),
      coldStatusMs: round(k),
      handMs: round(h),
      ratio: round(o / h, 2),
      coldRatio: round(k / h, 2),
      sameActuals: same,
      target: 1.3,
      method: `statusOf (engine actuals per line + Other, ${LINES + 2} month-end forecasts) vs one hand SQL of the same daily actuals per line, ${RUNS} alternating runs, medians; warm: the same budget and data asked again (one ungrouped scan, lines and forecasts reused), cold: the status cache emptied first (two scans side by side and every forecast)`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
