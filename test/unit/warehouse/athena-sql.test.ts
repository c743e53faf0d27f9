import type { EnrichmentFeature } from '../../../shared/model/view-features';
import {
  billingMonthsSql,
  candidateSql,
  conditionTuplesSql,
  curatedKey,
  dimensionValuesSql,
  featureSource,
  orgLiteral,
  rangeMonths,
  usageMetricsSql,
} from '../../../shared/warehouse/athena/sql';
import { computedColumn } from '../../../shared/warehouse/sql/expressions';
import { assertPartitioned, assertTrino, trinoErrors } from '../../support/trino';
import { entry } from '../enrichments/fixtures';

const t = { database: 'cost_management_dev', table: 'focus_billing' };

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
    expect(curatedKey('org_1', '2024-09', 'source-ab12.parquet')).toBe(
      'curated/org_id=org_1/billing_month=2024-09/source-ab12.parquet',
    );
    expect(() => curatedKey('org_1', '2024-09', '../x.parquet')).toThrow('invalid partition');
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

  it('every statement here is Trino and reads the billing table with its partition predicates', () => {
    const ref = '"cost_management_dev"."focus_billing"';
    const months = ['2024-08', '2024-09'];
    for (const sql of Object.values(candidateSql(t, 'org_1', months, 50))) {
      assertTrino(sql);
      expect(assertPartitioned(sql, { tableRef: ref, orgId: 'org_1', months, within: months })).toBe(1);
    }
    const source = featureSource(t, 'org_1', undefined, ['2024-09']);
    for (const sql of Object.values(
      dimensionValuesSql(
        `${source.sql} AS src`,
        ['2024-09'],
        [{ name: 'provider', expr: '"providername"' }],
        5,
      ),
    )) {
      assertTrino(sql);
      assertPartitioned(sql, { tableRef: ref, orgId: 'org_1', months: ['2024-09'], within: ['2024-09'] });
    }
    for (const sql of [billingMonthsSql(t, 'org_1'), usageMetricsSql(t, 'org_1')]) {
      assertTrino(sql);
      assertPartitioned(sql, { tableRef: ref, orgId: 'org_1' });
    }
  });

  it('widens a charge-period range by one billing month each side, and bounds it', () => {
    expect(rangeMonths('2024-09-01', '2024-10-01')).toEqual(['2024-08', '2024-09', '2024-10']);
    expect(rangeMonths('2024-12-31T23:00:00Z', '2025-01-01T01:00:00Z')).toEqual([
      '2024-11',
      '2024-12',
      '2025-01',
      '2025-02',
    ]);
    expect(rangeMonths('2024-09-05', '2024-09-05')).toEqual(['2024-08', '2024-09', '2024-10']);
    expect(() => rangeMonths('1900-01-01', '2024-01-01')).toThrow('The date range is too long');
  });

  it('the Trino check refuses DuckDB spellings and reads without the organisation', () => {
    expect(trinoErrors('SELECT "billedcost"::DOUBLE FROM t')).not.toEqual([]);
    expect(trinoErrors(`SELECT 1 FROM t WHERE "servicename" ILIKE '%ec2%'`)).not.toEqual([]);
    expect(trinoErrors('SELECT 1 FROM t LIMIT 10 OFFSET 5')).not.toEqual([]);
    expect(trinoErrors('SELECT 1 FROM t QUALIFY row_number() OVER () = 1')).not.toEqual([]);
    expect(trinoErrors('SELECT 1 FROM t OFFSET 5 LIMIT 10')).toEqual([]);
    for (const duckOnly of [
      `SELECT strftime("chargeperiodstart", '%Y') FROM t`,
      'SELECT list_contains(a, 1) FROM t',
      `SELECT regexp_matches("servicename", 'x') FROM t`,
      `SELECT map_extract_value("tags", 'a') FROM t`,
    ])
      expect(() => assertTrino(duckOnly)).toThrow('Not Trino functions');
    expect(() => assertTrino('SELECT 1; SELECT 2')).toThrow('Expected one statement, found 2');
    const ref = '"db"."tbl"';
    expect(() =>
      assertPartitioned(`SELECT * FROM "db"."tbl" WHERE "org_id" = 'a' OR TRUE`, {
        tableRef: ref,
        orgId: 'a',
      }),
    ).toThrow('without "org_id"');
    expect(() =>
      assertPartitioned(`SELECT * FROM (SELECT * FROM "db"."tbl") WHERE "org_id" = 'a'`, {
        tableRef: ref,
        orgId: 'a',
      }),
    ).toThrow('without "org_id"');
    expect(() =>
      assertPartitioned(
        `SELECT * FROM "db"."tbl" b WHERE b."org_id" = 'a' AND "billing_month" IN ('2024-09')`,
        {
          tableRef: ref,
          orgId: 'a',
          months: ['2024-09', '2024-10'],
        },
      ),
    ).toThrow('misses 2024-10');
    expect(
      assertPartitioned(
        `SELECT * FROM "db"."tbl" b WHERE (b."org_id" = 'a' AND ("billing_month" IN ('2024-09')))`,
        {
          tableRef: ref,
          orgId: 'a',
          months: ['2024-09'],
        },
      ),
    ).toBe(1);
  });
});
