import {
  athenaDialect,
  athenaParams,
  duckDialect,
  MissingRateError,
  metricSql,
  missingRateOf,
  positionalParams,
  seriesSql,
} from '../../../shared/warehouse/sql/compile';
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
    expect(c.sql).toContain(`WHEN "BillingCurrency" = 'USD' THEN [9e-1, NULL, 9.1e-1][`);
    expect(c.sql).toContain(`WHEN "BillingCurrency" = 'CAD' THEN [NULL, 6.7e-1][`);
    expect(c.sql).toContain(`CASE WHEN "BillingCurrency" = 'EUR' THEN 1 ELSE coalesce(`);
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
