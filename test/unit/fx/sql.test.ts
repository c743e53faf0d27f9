import { seriesSql } from '../../../shared/warehouse/sql/compile';
import { MissingRateError, missingRateOf } from '../../../shared/warehouse/sql/conversion';
import {
  athenaDialect,
  athenaParams,
  duckDialect,
  positionalParams,
} from '../../../shared/warehouse/sql/dialect';
import { metricSql } from '../../../shared/warehouse/sql/expressions';
import { assertTrino } from '../../support/trino';

/** The conversion part of a series statement (its figures are checked over DuckDB in test/integration/queries/fx.test.ts). */
const conversion = {
  target: 'EUR',
  from: '2024-09-01',
  factors: [
    { currency: 'USD', day: '2024-09-01', factor: 0.9 },
    { currency: 'USD', day: '2024-09-03', factor: 0.91 },
    { currency: 'CAD', day: '2024-09-02', factor: 0.67 },
  ],
};
const q = {
  orgId: 'org_a',
  groupBy: ['provider'],
  granularity: 'Month' as const,
  start: '2024-09-01',
  end: '2024-10-01',
  topN: 5,
  conversion,
};

describe('conversion in series statements', () => {
  it('is Trino SQL with known functions on Athena, and reads no relation but the source', () => {
    const c = seriesSql(q, metricSql('cost', athenaDialect), '"db"."billing"', {
      dialect: athenaDialect,
      params: athenaParams(),
    });
    assertTrino(c.sql);
    expect(c.sql).toContain("element_at(ARRAY[9e-1, NULL, 9.1e-1], (date_diff('day', DATE '2024-09-01'");
    expect(c.sql).not.toMatch(/JOIN/i);
  });

  it('holds one day-indexed list per source currency, NULL on days without a rate (DuckDB)', () => {
    const c = seriesSql(q, metricSql('cost', duckDialect), '"billing"', {
      dialect: duckDialect,
      params: positionalParams(),
    });
    expect(c.sql).toContain(`WHEN cur = 'USD' THEN [9e-1, NULL, 9.1e-1][`);
    expect(c.sql).toContain(`WHEN cur = 'CAD' THEN [NULL, 6.7e-1][`);
    expect(c.sql).toContain(`CASE WHEN cur = 'EUR' THEN 1 ELSE coalesce(`);
  });

  it('sums per day and billing currency first, and applies the factors to those partial sums only', () => {
    for (const granularity of ['Day', 'Month', 'Period', 'Hour'] as const) {
      const c = seriesSql({ ...q, granularity }, metricSql('cost', duckDialect), '"billing"', {
        dialect: duckDialect,
        params: positionalParams(),
      });
      const fine = granularity === 'Hour' ? 'hour' : 'day';
      // The billing table is read once, by the innermost SELECT, grouped by its day and currency.
      expect(c.sql.match(/FROM "billing"/g)).toHaveLength(1);
      expect(c.sql).toMatch(
        new RegExp(
          `SELECT date_trunc\\('${fine}', "ChargePeriodStart"\\) AS fine, "BillingCurrency" AS cur, .* sum\\("BilledCost"\\) AS p0\\sFROM "billing"`,
        ),
      );
      // The factor multiplies the partial sums (never a column of the billing table).
      expect(c.sql).toContain('sum(p0 * (CASE WHEN cur = ');
      expect(c.sql).not.toMatch(/"BilledCost"\) \* /);
    }
  });

  it('reads no billing currency when the adapter knows every row has one (and still fails on a missing day)', () => {
    const c = seriesSql(
      { ...q, granularity: 'Day', conversion: { ...conversion, rowCurrency: 'CAD' } },
      metricSql('cost', duckDialect),
      '"billing"',
      { dialect: duckDialect, params: positionalParams() },
    );
    expect(c.sql).not.toContain('"BillingCurrency"');
    // Day buckets: each bucket's sum times its factor, in one level; longer buckets sum days first.
    expect(c.sql).toContain(`coalesce(sum("BilledCost") * (CASE WHEN 'CAD' = 'EUR'`);
    expect(c.sql).not.toContain(') AS f');
    const monthly = seriesSql(
      { ...q, granularity: 'Month', conversion: { ...conversion, rowCurrency: 'CAD' } },
      metricSql('cost', duckDialect),
      '"billing"',
      { dialect: duckDialect, params: positionalParams() },
    );
    expect(monthly.sql).toContain(') AS f');
    expect(monthly.sql).toContain('sum(p0 * (CASE');
    expect(c.sql).toContain(`CASE WHEN 'CAD' = 'EUR' THEN 1 ELSE coalesce(CASE WHEN 'CAD' = 'USD'`);
    expect(c.sql).toContain(`error('FX_RATE_MISSING ' || coalesce('CAD', '(none)')`);
    const athena = seriesSql(
      { ...q, conversion: { ...conversion, rowCurrency: 'USD' } },
      metricSql('cost', athenaDialect),
      '"db"."billing"',
      { dialect: athenaDialect, params: athenaParams() },
    );
    assertTrino(athena.sql);
    expect(() =>
      seriesSql({ ...q, conversion: { ...conversion, rowCurrency: "US'" } }, '"BilledCost"', 'b', {
        dialect: duckDialect,
        params: positionalParams(),
      }),
    ).toThrow('invalid currency');
  });

  it('refuses factors that are not ours to inline', () => {
    const bad = (factors: { currency: string; day: string; factor: number }[]) => () =>
      seriesSql({ ...q, conversion: { ...conversion, factors } }, '"BilledCost"', 'b', {
        dialect: duckDialect,
        params: positionalParams(),
      });
    expect(bad([{ currency: "US'D", day: '2024-09-01', factor: 1 }])).toThrow('invalid currency');
    expect(bad([{ currency: 'USD', day: '2024-08-31', factor: 1 }])).toThrow('invalid conversion factor');
    expect(bad([{ currency: 'USD', day: '2024-09-02', factor: Number.NaN }])).toThrow(
      'invalid conversion factor',
    );
  });

  it('turns the engine failure of a missing rate into a 422 naming the currency and the day', () => {
    const duck = missingRateOf(new Error('Invalid Input Error: FX_RATE_MISSING CAD 2024-09-14 USD'));
    expect(duck).toBeInstanceOf(MissingRateError);
    expect((duck as MissingRateError).status).toBe(422);
    expect((duck as MissingRateError).body()).toEqual({
      error: expect.stringMatching(/^No exchange rate for CAD to USD on 2024-09-14 /),
    });
    const trino = missingRateOf(
      new Error("INVALID_CAST_ARGUMENT: Cannot cast 'FX_RATE_MISSING KRW 2024-01-02 EUR' to DOUBLE"),
    );
    expect((trino as MissingRateError).currency).toBe('KRW');
    const other = new Error('something else');
    expect(missingRateOf(other)).toBe(other);
  });
});
