import type { WindowAggregates } from '../port';

type Row = Record<string, unknown>;

/**
 * The tag-key aggregates of a window from the rows of its four result sets (month totals, keys,
 * key months, key values), the same for every engine; `providersOf` reads a key row's providers
 * (DuckDB lists them on the row, Athena answers them in a result set of their own).
 */
export function toWindowAggregates(
  rows: { totals: Row[]; keys: Row[]; keyMonths: Row[]; keyValues: Row[] },
  providersOf: (key: Row) => string[],
): WindowAggregates {
  return {
    months: rows.totals.map((r) => ({ month: String(r.month), cost: Number(r.cost) })),
    keys: rows.keys.map((r) => ({
      key: String(r.key),
      cost: Number(r.cost),
      values: Number(r.n),
      providers: providersOf(r),
    })),
    keyMonths: rows.keyMonths.map((r) => ({
      key: String(r.key),
      month: String(r.month),
      cost: Number(r.cost),
    })),
    keyValues: rows.keyValues.map((r) => ({
      key: String(r.key),
      value: String(r.value),
      cost: Number(r.cost),
    })),
  };
}
