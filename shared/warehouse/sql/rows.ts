import { BadRequestError } from '../../errors';
import { type BillingInfo, QUERY_BOUNDS, type SeriesRow } from '../warehouse-query';

// The rows the compiled statements answer, read back into the warehouse's types.

/** Maps result rows of `billingInfoSql` to BillingInfo. */
export function toBillingInfo(rows: Record<string, unknown>[]): BillingInfo {
  let last: string | null = null;
  const currencies: string[] = [];
  for (const r of rows) {
    if (r.currency !== null && r.currency !== undefined) currencies.push(String(r.currency));
    const day = r.last_day === null || r.last_day === undefined ? null : String(r.last_day);
    if (day && (last === null || day > last)) last = day;
  }
  return { lastChargeDay: last, currencies: currencies.sort() };
}

/** Maps result rows of a several-measure `seriesSql` statement to one SeriesRow list per measure. */
export function toSeriesRowsByMeasure(rows: Record<string, unknown>[], measures: number): SeriesRow[][] {
  if (rows.length > QUERY_BOUNDS.maxRows)
    throw new BadRequestError(
      `The query returns more than ${QUERY_BOUNDS.maxRows} rows; narrow groupBy or the range`,
    );
  return Array.from({ length: measures }, (_, i) =>
    rows.map((r) => ({ period: String(r.period), group: {}, value: Number(r[`value${i}`] ?? 0) })),
  );
}

/** Maps result rows of `seriesSql` to SeriesRow. */
export function toSeriesRows(rows: Record<string, unknown>[], groupBy: string[]): SeriesRow[] {
  if (rows.length > QUERY_BOUNDS.maxRows)
    throw new BadRequestError(
      `The query returns more than ${QUERY_BOUNDS.maxRows} rows; narrow groupBy or the range`,
    );
  return rows.map((r) => ({
    period: String(r.period),
    group: Object.fromEntries(groupBy.map((g, i) => [g, String(r[`g${i}`] ?? '')])),
    value: Number(r.value ?? 0),
    ...(r.other === true || r.other === 'true' ? { other: true as const } : {}),
  }));
}
