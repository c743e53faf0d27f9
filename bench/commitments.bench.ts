/**
 * Commitment analytics over ~1M generated billing rows (`COMMITMENTS_BENCH_ROWS` to change), 60
 * days of hourly AWS and Azure lines (on-demand eligible and ineligible usage, Savings Plan covered
 * usage and negations, RI usage, fee lines with unused commitment), written straight into the
 * billing table of a bench database:
 * - the summary (by provider, per day) as the route computes it (the facts statement through the
 *   DuckDB adapter, then `summarise`), beside one hand-written SQL statement giving the same
 *   figures; the results are compared, the target is ≤ 1.3×;
 * - a 60-day hourly simulation of 50 levels (the hourly facts, `hourlyUsage`, `simulate`), beside
 *   one hourly aggregate query of the eligible usage; the target is under 2 s, reported as a ratio.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetConfig } from '../shared/config';
import { ELIGIBILITY, eligibleClause } from '../shared/domain/commitments/eligibility';
import { hourlyUsage, SIMULATION_GROUPS, summarise } from '../shared/domain/commitments/service';
import { levelsUpTo, simulate } from '../shared/domain/commitments/simulation';
import { query, resetDuckDb, withConnection } from '../shared/warehouse/duckdb/database';
import { DuckDbQueries } from '../shared/warehouse/duckdb/queries';
import { round, timed } from './support';

const ORG = 'org_bench_commitments';
const START = '2025-01-01';
const END = '2025-03-02'; // 60 days
const HOURS = 60 * 24;

/** Best of `n` runs (the first warms caches). */
async function best<T>(n: number, fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; result: T }> {
  let out: { ms: number; cpuMs: number; result: T } | undefined;
  for (let i = 0; i < n; i++) {
    const t = await timed(fn);
    if (!out || t.ms < out.ms) out = t;
  }
  return out!;
}

/** One row per `i`: its hour, provider and line kind follow from `i`. */
export function generateSql(rows: number): string {
  const kind = `((i // ${HOURS}) % 20)`;
  const provider = `CASE WHEN (i // ${HOURS * 20}) % 2 = 0 THEN 'AWS' ELSE 'Microsoft' END`;
  const ec = `(0.5 + (i % 97) / 50.0)`;
  return `INSERT INTO billing (org_id, billing_month, "ChargePeriodStart", "BilledCost", "EffectiveCost", "ListCost",
      "BillingCurrency", "ProviderName", "ServiceName", "SubAccountId", "ChargeCategory", "PricingCategory",
      "CommitmentDiscountId", "CommitmentDiscountType", "CommitmentDiscountCategory", "CommitmentDiscountStatus", x_columns)
    SELECT '${ORG}', strftime(ts, '%Y-%m'), ts,
      CASE WHEN k = 16 THEN -${ec} * 1.4 ELSE ${ec} END,
      CASE WHEN k IN (16) THEN 0 ELSE ${ec} END,
      CASE WHEN k = 19 THEN NULL WHEN k = 16 THEN 0 ELSE ${ec} * 1.4 END,
      'USD', p,
      CASE WHEN k = 18 THEN 'Storage' WHEN p = 'AWS' THEN 'AmazonEC2' ELSE 'Virtual Machines' END,
      'acct-' || (i % 50),
      CASE WHEN k = 19 THEN 'Purchase' ELSE 'Usage' END,
      CASE WHEN k BETWEEN 14 AND 17 THEN 'Committed' WHEN k < 19 THEN 'Standard' END,
      CASE WHEN k BETWEEN 14 AND 16 OR k = 19 THEN 'sp-' || p || '-' || (i % 3) WHEN k = 17 THEN 'ri-' || p END,
      CASE WHEN k BETWEEN 14 AND 16 OR k = 19 THEN 'Savings Plan' WHEN k = 17 THEN 'Reservation' END,
      CASE WHEN k BETWEEN 14 AND 16 OR k = 19 THEN 'Spend' WHEN k = 17 THEN 'Usage' END,
      CASE WHEN k BETWEEN 14 AND 17 THEN 'Used' WHEN k = 19 AND i % 3 = 0 THEN 'Unused' END,
      MAP {'x_UsageType': CASE WHEN k = 18 THEN 'EBS:VolumeUsage' ELSE 'BoxUsage:m5.large' END}
    FROM (SELECT i, ${kind} AS k, ${provider} AS p, TIMESTAMP '${START}' + to_hours(CAST(i % ${HOURS} AS BIGINT)) AS ts
          FROM range(${rows}) t(i))`;
}

/**
 * The summary by provider and day in one hand-written statement applying the same eligibility rule
 * (docs/commitments.md) as a person would write it: one IN list per provider and one regular
 * expression for the AWS usage types (no credit-style commitments in these rows).
 */
const list = (xs: readonly string[]) => xs.map((x) => `'${x.replaceAll("'", "''")}'`).join(', ');
const rule = ELIGIBILITY.map((r) =>
  [
    `"ProviderName" = '${r.provider}'`,
    `"ServiceName" IN (${list(r.services)})`,
    ...(r.usageTypes
      ? [
          `(x_columns['x_UsageType'] IS NULL OR regexp_matches(x_columns['x_UsageType'], '${r.usageTypes.map((t) => t.replace('.', '\\.')).join('|')}'))`,
        ]
      : []),
    ...(r.pricingUnitContains ? [`contains("PricingUnit", '${r.pricingUnitContains}')`] : []),
  ].join(' AND '),
)
  .map((x) => `(${x})`)
  .join(' OR ');
const HAND_SUMMARY = `
  SELECT strftime(date_trunc('day', "ChargePeriodStart"), '%Y-%m-%d') AS day, "ProviderName" AS provider,
    sum(CASE WHEN "CommitmentDiscountStatus" = 'Used' THEN "EffectiveCost" ELSE 0 END) AS used,
    sum(CASE WHEN "CommitmentDiscountStatus" = 'Unused' THEN "EffectiveCost" ELSE 0 END) AS unused,
    sum(CASE WHEN "CommitmentDiscountStatus" = 'Used' AND "BilledCost" >= 0 THEN coalesce("ListCost", 0) ELSE 0 END) AS covered,
    sum(CASE WHEN "CommitmentDiscountId" IS NULL THEN "ListCost" ELSE 0 END) AS uncovered
  FROM billing
  WHERE org_id = '${ORG}' AND "ChargePeriodStart" >= TIMESTAMP '${START}' AND "ChargePeriodStart" < TIMESTAMP '${END}'
    AND ("CommitmentDiscountId" IS NOT NULL OR ("ChargeCategory" = 'Usage' AND coalesce("PricingCategory", '') <> 'Dynamic' AND (${rule})))
  GROUP BY 1, 2 ORDER BY 1, 2`;

/** One hourly aggregate of the eligible on-demand usage: the simulation's floor. */
const HAND_HOURLY = `
  SELECT date_trunc('hour', "ChargePeriodStart") AS h, sum("ListCost") AS usage
  FROM billing
  WHERE org_id = '${ORG}' AND "ChargePeriodStart" >= TIMESTAMP '${START}' AND "ChargePeriodStart" < TIMESTAMP '${END}'
    AND "CommitmentDiscountId" IS NULL AND "ChargeCategory" = 'Usage' AND coalesce("PricingCategory", '') <> 'Dynamic' AND (${rule})
  GROUP BY 1`;

export default async function commitmentsBench(): Promise<Record<string, unknown>> {
  const target = Number(process.env.COMMITMENTS_BENCH_ROWS ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'commitments-bench-'));
  try {
    process.env.DUCKDB_PATH = join(dir, 'bench.duckdb');
    process.env.WAREHOUSE = 'duckdb';
    resetConfig();
    resetDuckDb();
    const wh = new DuckDbQueries();
    await wh.billingMonths(ORG); // creates the tables
    const generate = await timed(() => withConnection((c) => query(c, generateSql(target))));
    const q = { orgId: ORG, start: START, end: END, eligible: eligibleClause() };

    const ours = await best(5, async () =>
      summarise(await wh.commitmentFacts({ ...q, grain: 'day', groupBy: ['provider'] }), 'provider', 'DAY'),
    );
    const hand = await best(5, () => withConnection((c) => query(c, HAND_SUMMARY)));
    // The same figures: per day and provider, unused cost and coverage.
    let compared = 0;
    for (const r of hand.result) {
      const mine = ours.result.rows.find((x) => x.date === r.day && x.group === r.provider);
      const used = Number(r.used);
      const unused = Number(r.unused);
      const eligible = Number(r.uncovered) + Number(r.covered);
      const same =
        mine &&
        Math.abs(mine.usedCost - used) < 1e-6 &&
        Math.abs(mine.unusedCost - unused) < 1e-6 &&
        Math.abs((mine.coverage ?? 0) - Number(r.covered) / eligible) < 1e-9;
      if (!same) throw new Error(`summary differs on ${r.day} ${r.provider}: ${JSON.stringify({ mine, r })}`);
      compared++;
    }

    const simulation = await best(5, async () => {
      const start = Date.parse(`${START}T00:00:00Z`);
      const rows = await wh.commitmentFacts({ ...q, grain: 'hour', groupBy: SIMULATION_GROUPS });
      const { usage, planCost, onDemandCost } = hourlyUsage(rows, 'AWS', start, HOURS);
      const discount = 1 - planCost / onDemandCost;
      return simulate({
        usage,
        discount,
        levels: levelsUpTo(usage, discount, 50),
        term: '1yr',
        paymentOption: 'No Upfront',
      });
    });
    const hourly = await best(5, () => withConnection((c) => query(c, HAND_HOURLY)));
    return {
      rows: target,
      generateMs: round(generate.ms),
      summary: {
        oursMs: round(ours.ms),
        handMs: round(hand.ms),
        ratio: round(ours.ms / hand.ms, 2),
        cpuRatio: round(ours.cpuMs / Math.max(1, hand.cpuMs), 2),
        target: '≤ 1.3',
        comparedCells: compared,
      },
      simulation: {
        levels: simulation.result.curve.length,
        hours: HOURS,
        oursMs: round(simulation.ms),
        hourlyAggregateMs: round(hourly.ms),
        ratio: round(simulation.ms / hourly.ms, 2),
        target: '< 2000 ms',
        recommendedHourly: round(simulation.result.recommended?.hourlyCommitment ?? 0, 3),
      },
    };
  } finally {
    resetDuckDb();
    rmSync(dir, { recursive: true, force: true });
  }
}
