/**
 * Warehouse benchmark over ~1M generated FOCUS rows (`WAREHOUSE_BENCH_ROWS` to change): ingestion
 * rows/s, the candidate aggregates and the full refresh, each beside hand-written DuckDB SQL that
 * produces the same result, run in the same process on a second database file, and the ratio
 * (ours / hand-written; the target is ≤ 1.5). The results of both are compared so the hand
 * SQL really is the same work.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { FOCUS_HEADER, writeFocusCsv } from '../infra/local/demo-data/generator';
import { resetConfig } from '../shared/config';
import { buildCandidates, CANDIDATE_TOP_VALUES } from '../shared/domain/dimensions/candidates';
import { DIMENSION_TOP_VALUES, dimensionNames } from '../shared/domain/dimensions/dimension-list';
import type { FeatureModel } from '../shared/model/view-features';
import { DuckDbWarehouse } from '../shared/warehouse/duckdb/adapter';
import { billingTableDdl, resetDuckDb } from '../shared/warehouse/duckdb/database';
import { BILLING_COLUMNS } from '../shared/warehouse/focus-columns';
import type { CostSeriesQuery } from '../shared/warehouse/warehouse-query';
import { entry } from '../test/unit/enrichments/fixtures';
import { benchRows, resourcesFor, round, timed } from './support';

const ORG = 'org_bench';
const MONTHS = ['2024-07', '2024-08', '2024-09'];

/** Best of `n` runs (the first warms caches). */
async function best<T>(n: number, fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  let out: { ms: number; result: T } | undefined;
  for (let i = 0; i < n; i++) {
    const t = await timed(fn);
    if (!out || t.ms < out.ms) out = t;
  }
  return out as { ms: number; result: T };
}

export default async function warehouseBench(): Promise<Record<string, unknown>> {
  const target = benchRows();
  const dir = mkdtempSync(join(tmpdir(), 'wh-bench-'));
  const csv = join(dir, 'focus.csv');
  try {
    // ~2 resources per `resourcesPerProvider` across the four providers, one row per resource and day.
    const days = 31 + 31 + 30;
    const gen = await timed(() =>
      writeFocusCsv(csv, {
        seed: 1,
        months: MONTHS,
        resourcesPerProvider: resourcesFor(target, days),
        accountPrefix: '3000',
      }),
    );
    const rows = gen.result;
    const bytes = statSync(csv).size;

    process.env.DUCKDB_PATH = join(dir, 'ours.duckdb');
    process.env.WAREHOUSE = 'duckdb';
    resetConfig();
    resetDuckDb();
    const ours = new DuckDbWarehouse();
    const hand = await (await DuckDBInstance.create(join(dir, 'hand.duckdb'))).connect();
    await hand.run("SET TimeZone = 'UTC'");
    await hand.run(billingTableDdl('billing'));
    const handRows = async (sql: string) => (await hand.runAndReadAll(sql)).getRowObjectsJson();

    // ---- ingestion: ours (header check, guarded insert, atomic month replace) vs one INSERT … SELECT
    await ours.billingMonths(ORG); // opens the database outside the timing, as the hand side's is
    const ingest = await timed(() => ours.ingestFile({ orgId: ORG, path: csv, sourceName: 'focus.csv' }));
    const handIngest = await timed(() =>
      hand.run(`INSERT INTO billing SELECT
          '${ORG}', strftime(TRY_CAST("BillingPeriodStart" AS TIMESTAMP), '%Y-%m'),
          ${handCsvColumns()}
        FROM read_csv('${csv}', all_varchar = true, header = true, nullstr = ['NULL', ''])`),
    );
    const [handCount] = await handRows(`SELECT count(*)::INT AS n, sum("BilledCost") AS cost FROM billing`);

    // ---- candidates: ours (aggregates + shaping) vs one hand-written statement set
    const [months] = [await ours.billingMonths(ORG)];
    const window = months.slice(0, 3).reverse();
    const candidates = await best(3, async () =>
      buildCandidates(await ours.candidateAggregates(ORG, window, CANDIDATE_TOP_VALUES)),
    );
    const inList = window.map((m) => `'${m}'`).join(', ');
    const handCandidates = await best(3, async () => {
      const kv = `(SELECT billing_month, "ProviderName" AS p, "BilledCost" AS c, unnest(map_keys("Tags")) AS k, unnest(map_values("Tags")) AS v FROM billing WHERE org_id = '${ORG}' AND billing_month IN (${inList}))`;
      const [total] = await handRows(
        `SELECT sum("BilledCost") AS t FROM billing WHERE org_id = '${ORG}' AND billing_month IN (${inList})`,
      );
      const keys = await handRows(
        `SELECT k, sum(c) AS cost, count(DISTINCT v)::INT AS n, list(DISTINCT p) AS providers FROM ${kv} GROUP BY k`,
      );
      const byMonth = await handRows(`SELECT k, billing_month, sum(c) AS cost FROM ${kv} GROUP BY 1, 2`);
      const values = await handRows(
        `SELECT k, v, sum(c) AS cost FROM ${kv} GROUP BY 1, 2 QUALIFY row_number() OVER (PARTITION BY k ORDER BY sum(c) DESC, v) <= ${CANDIDATE_TOP_VALUES}`,
      );
      return { total, keys, byMonth, values };
    });

    // ---- full refresh: labels, an enrichment with a condition and a virtual dimension
    const accounts = (
      await handRows(`SELECT DISTINCT "SubAccountId" AS a FROM billing ORDER BY 1 LIMIT 40`)
    ).map((r) => String(r.a));
    const model: FeatureModel = {
      labels: [
        {
          name: 'environment_l',
          columnsMerged: [
            { name: 'environment', type: 'label' },
            { name: 'env', type: 'label' },
            { name: 'Environment', type: 'label' },
          ],
          maps: [
            { value: 'prod', to: 'production' },
            { value: 'PROD', to: 'production' },
          ],
        },
        { name: 'team_l', columnsMerged: [{ name: 'team', type: 'label' }], maps: [] },
      ],
      vdims: [
        {
          id: 'v1',
          name: 'stage',
          rules: [
            {
              value: 'non-production',
              whereClause: {
                combinator: 'and',
                rules: [{ field: 'environment_l', operator: 'in', value: ['dev', 'test', 'staging'] }],
              },
            },
          ],
          defaultValue: 'production',
        },
      ],
      enrichments: [
        {
          name: 'cost_centers',
          keyField: 'SubAccountId',
          priority: 0,
          conditions: 'input.ServiceCategory == "Compute"',
          targetColumns: [{ name: 'cost_center', mode: 'merge' }],
          entries: accounts.map((a, i) => entry(a, { cost_center: `CC-${i % 7}` })),
        },
      ],
    };
    const refresh = await best(2, async () => {
      const catalog = await ours.refreshFeatures(ORG, model, 'full');
      const aggregates = await ours.candidateAggregates(ORG, window, CANDIDATE_TOP_VALUES);
      const values = await ours.dimensionValues(ORG, window, dimensionNames(catalog), DIMENSION_TOP_VALUES);
      return { catalog, candidates: buildCandidates(aggregates), values };
    });
    const handRefresh = await best(2, async () => {
      await hand.run(`CREATE TEMP TABLE IF NOT EXISTS cc (k VARCHAR, v VARCHAR)`);
      await hand.run('DELETE FROM cc');
      await hand.run(`INSERT INTO cc VALUES ${accounts.map((a, i) => `('${a}', 'CC-${i % 7}')`).join(', ')}`);
      await hand.run('BEGIN');
      await hand.run(`CREATE OR REPLACE TABLE e AS SELECT b.*,
          CASE coalesce("Tags"['environment'], "Tags"['env'], "Tags"['Environment']) WHEN 'prod' THEN 'production' WHEN 'PROD' THEN 'production'
               ELSE coalesce("Tags"['environment'], "Tags"['env'], "Tags"['Environment']) END AS environment_l,
          "Tags"['team'] AS team_l,
          CASE WHEN b."ServiceCategory" = 'Compute' THEN cc.v END AS cost_center
        FROM billing b LEFT JOIN cc ON cc.k = b."SubAccountId" WHERE b.org_id = '${ORG}'`);
      await hand.run(
        `CREATE OR REPLACE VIEW v AS SELECT *, CASE WHEN environment_l IN ('dev', 'test', 'staging') THEN 'non-production' ELSE 'production' END AS stage FROM e`,
      );
      await hand.run('COMMIT');
      const dims = [
        'ProviderName',
        'ServiceName',
        'ServiceCategory',
        'RegionId',
        'SubAccountId',
        'environment_l',
        'team_l',
        'stage',
        'cost_center',
      ];
      const values =
        await handRows(`WITH base AS (SELECT "BilledCost" AS cost, ${dims.map((d) => `"${d}"::VARCHAR AS "${d}"`).join(', ')} FROM v WHERE billing_month IN (${inList}))
        SELECT field, value, sum(cost) AS cost FROM (UNPIVOT base ON ${dims.map((d) => `"${d}"`).join(', ')} INTO NAME field VALUE value)
        GROUP BY 1, 2 QUALIFY row_number() OVER (PARTITION BY field ORDER BY sum(cost) DESC, value) <= ${DIMENSION_TOP_VALUES}`);
      return values;
    });

    // ---- the two sides computed the same things
    const monthly2024: CostSeriesQuery = {
      orgId: ORG,
      metricId: 'cost',
      granularity: 'Month',
      start: '2024-01-01',
      end: '2025-01-01',
    };
    const ourCost = (await ours.costSeries(monthly2024)).reduce((s, r) => s + r.value, 0);
    const ourCc = (await ours.costSeries({ ...monthly2024, groupBy: 'cost_center' }))
      .filter((r) => r.group.cost_center)
      .reduce((s, r) => s + r.value, 0);
    const [handCc] = await handRows(`SELECT sum("BilledCost") AS c FROM v WHERE cost_center IS NOT NULL`);
    const sameTotals = Math.abs(ourCost - Number(handCount?.cost)) < 1e-6 * Math.abs(ourCost);
    const sameEnrichment = Math.abs(ourCc - Number(handCc?.c)) < 1e-6 * Math.max(1, Math.abs(ourCc));
    const sameCandidates = candidates.result.length === handCandidates.result.keys.length;
    hand.closeSync();

    return {
      rows,
      csvMegabytes: round(bytes / 1e6),
      generateSeconds: round(gen.ms / 1000),
      ingestion: {
        ms: round(ingest.ms),
        rowsPerSecond: Math.round(rows / (ingest.ms / 1000)),
        handWrittenMs: round(handIngest.ms),
        handWrittenRowsPerSecond: Math.round(rows / (handIngest.ms / 1000)),
        ratio: round(ingest.ms / handIngest.ms, 2),
      },
      candidates: {
        ms: round(candidates.ms),
        handWrittenMs: round(handCandidates.ms),
        ratio: round(candidates.ms / handCandidates.ms, 2),
        keys: candidates.result.length,
      },
      fullRefresh: {
        ms: round(refresh.ms),
        handWrittenMs: round(handRefresh.ms),
        ratio: round(refresh.ms / handRefresh.ms, 2),
        dimensions: refresh.result.catalog.dimensions.map((d) => d.name),
        note: 'warehouse side of the refresh (enriched table, view, candidate and dimension aggregates); DynamoDB cache writes excluded',
      },
      targetRatio: 1.5,
      sameResults: { totals: sameTotals, enrichment: sameEnrichment, candidateKeys: sameCandidates },
    };
  } finally {
    resetDuckDb();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The billing columns after org_id and billing_month, cast by hand from the all-text CSV. */
function handCsvColumns(): string {
  const ts = (c: string) => `TRY_CAST("${c}" AS TIMESTAMP)`;
  const num = (c: string) => `TRY_CAST("${c}" AS DOUBLE)`;
  const nul = (t: string) => `NULL::${t}`;
  // The generator's FOCUS columns; its x_ columns are handled one by one below.
  const present = new Set<string>(FOCUS_HEADER.filter((c) => !c.startsWith('x_')));
  // Column order of BILLING_COLUMNS after the two partition columns.
  return BILLING_COLUMNS.slice(2)
    .map(({ name, type }) => {
      if (name === 'x_unblended_cost') return num('x_UnblendedCost');
      if (name === 'x_columns')
        return `map_from_entries(list_filter([{'key': 'x_ServiceCode', 'value': "x_ServiceCode"}], e -> e.value IS NOT NULL))`;
      if (name === 'source_file') return `'focus.csv'`;
      if (name === 'ingested_at') return 'now()::TIMESTAMP';
      if (!present.has(name))
        return type === 'tags'
          ? 'MAP {}::MAP(VARCHAR, VARCHAR)'
          : nul(type === 'number' ? 'DOUBLE' : type === 'timestamp' ? 'TIMESTAMP' : 'VARCHAR');
      if (name === 'Tags')
        return `coalesce(TRY_CAST(TRY_CAST("Tags" AS JSON) AS MAP(VARCHAR, VARCHAR)), MAP {}::MAP(VARCHAR, VARCHAR))`;
      if (type === 'number') return num(name);
      if (type === 'timestamp') return ts(name);
      return `"${name}"`;
    })
    .join(',\n          ');
}
