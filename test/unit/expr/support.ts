import {
  type Bucket,
  evaluateExpression,
  type GroupedSeries,
  parseExpression,
} from '../../../shared/domain/common/expr';
import { forecastEndOfPeriod } from '../../../shared/domain/common/expr/period-forecast';

export type Values = (number | null)[];

/** Consecutive calendar days from `start` (UTC), `YYYY-MM-DD`. */
export function days(start: string, count: number): string[] {
  const t0 = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(t0 + i * 86_400_000).toISOString().slice(0, 10));
}

export const ungrouped = (values: Values): GroupedSeries => ({ groups: [{ key: {}, values }] });

/** Evaluates `source` over `series` (arrays are ungrouped series) and returns the result. */
export function run(
  source: string,
  series: Record<string, Values | GroupedSeries>,
  dates: string[],
  bucket: Bucket = 'Day',
): GroupedSeries {
  const input = Object.fromEntries(
    Object.entries(series).map(([name, s]) => [name, Array.isArray(s) ? ungrouped(s) : s]),
  );
  const expr = parseExpression(source, { names: Object.keys(series) });
  return evaluateExpression(expr, { dates, bucket, series: input, forecaster: forecastEndOfPeriod });
}

/** The values of an ungrouped result. */
export function values(
  source: string,
  series: Record<string, Values | GroupedSeries>,
  dates: string[],
  bucket: Bucket = 'Day',
): Values {
  const out = run(source, series, dates, bucket);
  expect(out.groups).toHaveLength(1);
  expect(out.groups[0]?.key).toEqual({});
  return out.groups[0]?.values ?? [];
}

/** `expect(actual).toEqual(expected)` with numbers compared to 9 decimal places. */
export function expectClose(actual: Values, expected: Values): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((e, i) => {
    const a = actual[i];
    if (e === null) expect({ i, a }).toEqual({ i, a: null });
    else {
      expect({ i, isNumber: typeof a === 'number' }).toEqual({ i, isNumber: true });
      expect(a as number).toBeCloseTo(e, 9);
    }
  });
}
