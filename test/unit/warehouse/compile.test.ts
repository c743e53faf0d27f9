import { COST_METRIC_IDS } from '../../../shared/enums';
import { METRIC_COLUMNS } from '../../../shared/warehouse/focus-columns';
import { seriesSql } from '../../../shared/warehouse/sql/compile';
import {
  athenaDialect,
  athenaParams,
  duckDialect,
  inlineParams,
  positionalParams,
} from '../../../shared/warehouse/sql/dialect';
import { computedColumn, fieldExpr, metricSql, whereSql } from '../../../shared/warehouse/sql/expressions';
import { quoteIdent, quoteLiteral } from '../../../shared/warehouse/sql/quote';

const duck = () => ({ dialect: duckDialect, params: positionalParams() });

describe('query model → SQL', () => {
  it('maps all eight cost metric ids to a column (with documented fallbacks)', () => {
    expect(Object.keys(METRIC_COLUMNS).sort()).toEqual([...COST_METRIC_IDS].sort());
    expect(metricSql('cost', duckDialect)).toBe('"BilledCost"');
    expect(metricSql('effective_cost', duckDialect)).toBe('"EffectiveCost"');
    expect(metricSql('list_cost', duckDialect)).toBe('"ListCost"');
    expect(metricSql('contracted_cost', duckDialect)).toBe('"ContractedCost"');
    expect(metricSql('unblended_cost', duckDialect)).toBe('coalesce("x_unblended_cost", "BilledCost")');
    expect(metricSql('net_unblended_cost', duckDialect)).toBe(
      'coalesce("x_net_unblended_cost", "BilledCost")',
    );
    expect(metricSql('amortized_cost', duckDialect)).toBe('coalesce("x_amortized_cost", "EffectiveCost")');
    expect(metricSql('net_amortized_cost', athenaDialect)).toBe(
      'coalesce("x_net_amortized_cost", "effectivecost")',
    );
  });

  it('resolves built-in names, FOCUS columns, tags, x_ columns and catalog dimensions', () => {
    const ctx = {
      ...duck(),
      catalog: {
        dimensions: [{ name: 'team', kind: 'label' as const, column: computedColumn('label', 'team') }],
      },
    };
    expect(fieldExpr('provider', ctx)).toBe('"ProviderName"');
    expect(fieldExpr('ServiceName', ctx)).toBe('"ServiceName"');
    expect(fieldExpr('resourcename', ctx)).toBe('"ResourceName"');
    expect(fieldExpr('tag:env', ctx)).toBe('"Tags"[$1]');
    expect(fieldExpr('x_Custom', ctx)).toBe('"x_columns"[$2]');
    expect(fieldExpr('team', ctx)).toMatch(/^"d_[0-9a-f]{16}"$/);
    expect(ctx.params.values).toEqual(['env', 'x_Custom']);
    expect(() => fieldExpr('nope', ctx)).toThrow('Unknown dimension "nope"');
    expect(() => fieldExpr('BilledCost', ctx)).toThrow('Unknown dimension');
    expect(() => fieldExpr('team', { ...ctx, allowKinds: ['vdim'] })).toThrow('Unknown dimension');
  });

  it('compiles nested groups and every operator with values as parameters', () => {
    const ctx = duck();
    const sql = whereSql(
      {
        combinator: 'and',
        rules: [
          { field: 'provider', operator: 'in', value: ['AWS', 'Oracle'] },
          {
            combinator: 'or',
            rules: [
              { field: 'tag:team', operator: 'notIn', value: ['a'] },
              { field: 'service', operator: 'contains', value: ['Amazon'] },
              { field: 'region', operator: 'null', value: [] },
            ],
          },
          { field: 'sub_account', operator: 'beginsWith', value: [] },
        ],
      },
      ctx,
    );
    expect(sql).toBe(
      '(("ProviderName" IN ($1, $2)) AND (("Tags"[$3] IS NULL OR "Tags"[$4] NOT IN ($5)) OR (contains("ServiceName", $6)) OR ("RegionId" IS NULL)) AND FALSE)',
    );
    expect(ctx.params.values).toEqual(['AWS', 'Oracle', 'team', 'team', 'a', 'Amazon']);
    expect(() =>
      whereSql({ combinator: 'and', rules: [{ field: 'provider', operator: 'like', value: [] }] }, duck()),
    ).toThrow('Unknown operator "like"');
    expect(() => whereSql({ combinator: 'xor' as 'and', rules: [] }, duck())).toThrow('combinator');
  });

  it('never puts user text in SQL: injection attempts stay parameters or escaped literals', () => {
    const evil = `x'); DROP TABLE billing; --`;
    const ctx = duck();
    const sql = whereSql(
      { combinator: 'and', rules: [{ field: `tag:${evil}`, operator: '=', value: [evil] }] },
      ctx,
    );
    expect(sql).not.toContain('DROP');
    expect(ctx.params.values).toEqual([evil, evil]);
    const inline = whereSql(
      { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: [evil] }] },
      { dialect: duckDialect, params: inlineParams() },
    );
    expect(inline).toBe(`(("ProviderName" IN (${quoteLiteral(evil)})))`);
    expect(quoteLiteral(evil)).toBe(`'x''); DROP TABLE billing; --'`);
    expect(() => quoteLiteral('a\u0000b')).toThrow();
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
    expect(() => quoteIdent('')).toThrow();
  });

  it('builds a DuckDB series query: org first, half-open range, groups, ordinals', () => {
    const ctx = duck();
    const q = seriesSql(
      {
        orgId: 'org_1',
        groupBy: ['provider', 'tag:env'],
        granularity: 'Week',
        start: '2024-09-01',
        end: '2024-10-01T00:00:00Z',
        whereClause: { combinator: 'and', rules: [{ field: 'service', operator: '!=', value: ['Tax'] }] },
      },
      metricSql('cost', duckDialect),
      '"v_x"',
      ctx,
    );
    // Grouped by the truncated timestamp; the bucket is formatted on the aggregated rows only.
    expect(q.sql).toContain(`SELECT date_trunc('week', "ChargePeriodStart") AS bucket, `);
    expect(q.sql).toContain(
      `SELECT strftime(date_trunc('week', bucket), '%Y-%m-%d') AS period, g0, g1, value`,
    );
    expect(q.sql).toContain('FROM "v_x"');
    expect(q.sql).toContain(
      `WHERE "org_id" = $2 AND "ChargePeriodStart" >= CAST($3 AS TIMESTAMP) AND "ChargePeriodStart" < CAST($4 AS TIMESTAMP) AND`,
    );
    expect(q.sql).toContain('GROUP BY 1, 2, 3');
    expect(q.params).toEqual(['env', 'org_1', '2024-09-01 00:00:00', '2024-10-01 00:00:00', 'Tax']);
    expect(() =>
      seriesSql({ orgId: 'o', granularity: 'Day', start: 'yesterday', end: '2024-01-01' }, '1', 't', duck()),
    ).toThrow('start must be a date');
    expect(() =>
      seriesSql(
        { orgId: 'o', granularity: 'Minute' as 'Day', start: '2024-01-01', end: '2024-01-02' },
        '1',
        't',
        duck(),
      ),
    ).toThrow('granularity');
  });

  it('builds the same query for Athena with quoted-literal execution parameters', () => {
    const ctx = { dialect: athenaDialect, params: athenaParams() };
    const q = seriesSql(
      {
        orgId: "org_'1",
        groupBy: 'tag:team',
        granularity: 'Month',
        start: '2024-09-01',
        end: '2024-10-01',
        whereClause: { combinator: 'or', rules: [{ field: 'service', operator: 'endsWith', value: ['DB'] }] },
      },
      metricSql('cost', athenaDialect),
      '"db"."billing"',
      ctx,
    );
    expect(q.sql).toBe(
      [
        `SELECT date_format(date_trunc('month', bucket), '%Y-%m-%d') AS period, g0, value`,
        'FROM (',
        `SELECT date_trunc('month', "chargeperiodstart") AS bucket, coalesce(element_at("tags", ?), '') AS g0, coalesce(sum("billedcost"), 0) AS value`,
        'FROM "db"."billing"',
        `WHERE "org_id" = ? AND "billing_month" BETWEEN '2024-08' AND '2024-10' AND "chargeperiodstart" >= CAST(? AS timestamp) AND "chargeperiodstart" < CAST(? AS timestamp) AND (((strpos(reverse("servicename"), reverse(?)) = 1)))`,
        'GROUP BY 1, 2',
        ') AS a',
        'ORDER BY period, g0',
        'LIMIT 200001',
      ].join('\n'),
    );
    expect(q.params).toEqual([
      "'team'",
      "'org_''1'",
      "'2024-09-01 00:00:00'",
      "'2024-10-01 00:00:00'",
      "'DB'",
    ]);
  });
});

describe('positional parameters follow the text', () => {
  it('binds a tag key once per appearance, in order', () => {
    const ctx = { dialect: athenaDialect, params: athenaParams() };
    const sql = whereSql(
      {
        combinator: 'and',
        rules: [
          { field: 'tag:team', operator: 'notIn', value: ['a', 'b'] },
          { field: 'tag:env', operator: 'doesNotContain', value: ['pro'] },
        ],
      },
      ctx,
    );
    expect(sql).toBe(
      '((element_at("tags", ?) IS NULL OR element_at("tags", ?) NOT IN (?, ?)) AND (element_at("tags", ?) IS NULL OR NOT ((strpos(element_at("tags", ?), ?) > 0))))',
    );
    expect(ctx.params.values).toEqual(["'team'", "'team'", "'a'", "'b'", "'env'", "'env'", "'pro'"]);
  });
});
