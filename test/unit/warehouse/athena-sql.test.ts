import {
  billingMonthsSql,
  candidateSql,
  conditionTuplesSql,
  curatedKey,
  dimensionValuesSql,
  featureSource,
  orgLiteral,
  usageMetricsSql,
} from '../../../shared/warehouse/athena/sql';
import type { EnrichmentFeature } from '../../../shared/warehouse/features';
import { computedColumn } from '../../../shared/warehouse/sql/compile';

const t = { database: 'cost_management_dev', table: 'focus_billing' };
const entry = (key: string, values: Record<string, string>) =>
  Object.fromEntries([
    ['key', key],
    ['then', values],
  ]) as EnrichmentFeature['entries'][number];

describe('Athena SQL', () => {
  it('always names the organisation as a literal (injected partition projection) and checks it', () => {
    expect(featureSource(t, 'org_1', undefined).sql).toBe(
      `(SELECT * FROM "cost_management_dev"."focus_billing" WHERE "org_id" = 'org_1')`,
    );
    expect(billingMonthsSql(t, 'org_1')).toBe(
      `SELECT DISTINCT "billing_month" AS m FROM "cost_management_dev"."focus_billing" WHERE "org_id" = 'org_1' ORDER BY 1 DESC`,
    );
    expect(usageMetricsSql(t, 'org_1')).toContain(`WHERE "org_id" = 'org_1' AND "consumedunit" IS NOT NULL`);
    expect(() => orgLiteral("org_1' OR '1'='1")).toThrow('Invalid organisation id');
    expect(() => candidateSql(t, 'org_1', ["2024-09' OR 1=1"], 10)).toThrow('Invalid billing month');
    expect(curatedKey('org_1', '2024-09')).toBe('curated/org_id=org_1/billing_month=2024-09/data.parquet');
  });

  it('computes labels, enrichments (with passing condition inputs) and virtual dimensions in a derived table', () => {
    const doc: EnrichmentFeature = {
      name: 'cc',
      keyField: 'SubAccountId',
      priority: 1,
      conditions: 'input.ServiceName == "EC2"',
      targetColumns: [{ name: 'cost_center', mode: 'merge' }],
      entries: [entry('111', { cost_center: "CC-1 'north'" })],
    };
    const source = featureSource(t, 'org_1', {
      labels: [
        {
          name: 'env',
          columnsMerged: [{ name: 'env', type: 'label' }],
          maps: [{ value: 'dev', to: 'development' }],
        },
      ],
      vdims: [
        {
          id: 'v1',
          name: 'stage',
          rules: [
            {
              value: 'np',
              whereClause: {
                combinator: 'and',
                rules: [{ field: 'env', operator: 'in', value: ['development'] }],
              },
            },
          ],
          defaultValue: 'prod',
        },
      ],
      enrichments: [{ doc, passing: { fields: ['ServiceName'], tuples: [['EC2']] } }],
    });
    const env = computedColumn('label', 'env');
    const cc = computedColumn('enrichment', 'cost_center');
    const stage = computedColumn('vdim', 'stage');
    expect(source.dimensions).toEqual([
      { name: 'env', kind: 'label', column: env },
      { name: 'cost_center', kind: 'enrichment', column: cc },
      { name: 'stage', kind: 'vdim', column: stage },
    ]);
    const layer0 =
      `SELECT b.*, element_at("tags", 'env') AS m_0, e0.t0 AS "__e0_0", coalesce(p0.ok, FALSE) AS "__c0" ` +
      `FROM "cost_management_dev"."focus_billing" b ` +
      `LEFT JOIN (VALUES ('111', 'CC-1 ''north''')) AS e0 (k, t0) ON e0.k = b."subaccountid" ` +
      `LEFT JOIN (VALUES ('EC2', TRUE)) AS p0 (c0, ok) ON p0.c0 IS NOT DISTINCT FROM b."servicename" ` +
      `WHERE b."org_id" = 'org_1'`;
    const layer1 =
      `SELECT *, CASE WHEN m_0 = 'dev' THEN 'development' ELSE m_0 END AS "${env}", ` +
      `coalesce(CAST(NULL AS VARCHAR), CASE WHEN "__c0" THEN "__e0_0" END) AS "${cc}" FROM (${layer0})`;
    expect(source.sql).toBe(
      `(SELECT *, CASE WHEN (("${env}" IN ('development'))) THEN 'np' ELSE 'prod' END AS "${stage}" FROM (${layer1}))`,
    );
    expect(source.warnings).toEqual([]);
    expect(
      conditionTuplesSql(t, 'org_1', doc, ['ServiceName', 'BilledCost', 'Tags', 'ChargePeriodStart']),
    ).toBe(
      [
        `SELECT DISTINCT b."servicename" AS c0, CAST(b."billedcost" AS VARCHAR) AS c1, json_format(CAST(b."tags" AS JSON)) AS c2, date_format(b."chargeperiodstart", '%Y-%m-%d %H:%i:%s') AS c3`,
        `FROM "cost_management_dev"."focus_billing" b`,
        `WHERE b."org_id" = 'org_1' AND b."subaccountid" IN ('111')`,
        'LIMIT 10001',
      ].join('\n'),
    );
  });

  it('builds the candidate and dimension-value statements', () => {
    const sql = candidateSql(t, 'org_1', ['2024-08', '2024-09'], 50);
    expect(sql.months).toBe(
      `SELECT "billing_month" AS month, coalesce(sum("billedcost"), 0) AS cost FROM "cost_management_dev"."focus_billing" WHERE "org_id" = 'org_1' AND "billing_month" IN ('2024-08', '2024-09') GROUP BY 1 ORDER BY 1`,
    );
    expect(sql.keys).toContain(`CROSS JOIN UNNEST("tags") AS u (k, v)`);
    expect(sql.keyValues).toContain('WHERE rn <= 50');
    const dv = dimensionValuesSql(
      '(SELECT 1) AS src',
      ['2024-09'],
      [{ name: 'provider', expr: '"providername"' }],
      200,
    );
    expect(dv.values).toContain(`ARRAY['f0'] AS fs, ARRAY[CAST("providername" AS VARCHAR)] AS vs`);
    expect(dv.values).toContain('CROSS JOIN UNNEST(fs, vs) AS u (field, value)');
    expect(dv.total).toBe(
      `SELECT coalesce(sum("billedcost"), 0) AS total FROM (SELECT 1) AS src WHERE "billing_month" IN ('2024-09')`,
    );
  });
});
