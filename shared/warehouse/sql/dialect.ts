import type { Granularity } from '../warehouse-query';
import { quoteIdent, quoteLiteral } from './quote';

// What differs between the engines (DuckDB, Athena's Trino) in the statements we compile, and
// where user values go (bound parameters or checked literals).

export interface Dialect {
  readonly name: 'duckdb' | 'athena';
  /** A column of the billing table or the org's enriched view. */
  col(name: string): string;
  /** The value of map column `mapCol` at key expression `key` (NULL when absent). */
  mapValue(mapCol: string, key: string): string;
  contains(expr: string, needle: string): string;
  startsWith(expr: string, prefix: string): string;
  endsWith(expr: string, suffix: string): string;
  /** First day of the period holding timestamp `expr`, as `YYYY-MM-DD` text. */
  period(granularity: Granularity, expr: string): string;
  /** The hour holding timestamp `expr`, as `YYYY-MM-DDTHH:00:00Z` text. */
  hour(expr: string): string;
  /** A timestamp from a `YYYY-MM-DD HH:MM:SS` text parameter. */
  timestamp(param: string): string;
  /**
   * The keyword after `AS` that makes a CTE computed once (DuckDB's `MATERIALIZED`; empty for
   * Trino, which has none). Without it DuckDB may plan the top-N ranking's `sum() OVER
   * (PARTITION BY …)` as a join of the aggregate with itself and scan the table twice.
   */
  readonly materialized: string;
  /**
   * Whether series statements bound `billing_month` (Athena: partition pruning, without which a
   * statement reads every month of the organisation). DuckDB has no partitions and prunes by the
   * `ChargePeriodStart` zone maps; there the bound would only cost a string comparison per row.
   */
  readonly monthBound: boolean;
  /** Fails the statement with an error whose text holds the text expression `message`. */
  fail(message: string): string;
  /** The `YYYY-MM-DD` text of timestamp `expr`. */
  dayText(expr: string): string;
  /** 1-based position of timestamp `expr`'s day in a list of days starting on `day` (a checked literal). */
  dayIndex(day: string, expr: string): string;
  /** A list literal of DOUBLE values, and its element at a 1-based position (NULL past its end). */
  list(items: string[]): string;
  listAt(list: string, index: string): string;
}

export const duckDialect: Dialect = {
  name: 'duckdb',
  col: (name) => quoteIdent(name),
  mapValue: (mapCol, key) => `${quoteIdent(mapCol)}[${key}]`,
  contains: (e, n) => `contains(${e}, ${n})`,
  startsWith: (e, p) => `starts_with(${e}, ${p})`,
  endsWith: (e, s) => `ends_with(${e}, ${s})`,
  period: (g, e) => `strftime(date_trunc('${g.toLowerCase()}', ${e}), '%Y-%m-%d')`,
  hour: (e) => `strftime(date_trunc('hour', ${e}), '%Y-%m-%dT%H:00:00Z')`,
  timestamp: (p) => `CAST(${p} AS TIMESTAMP)`,
  materialized: ' MATERIALIZED',
  monthBound: false,
  fail: (m) => `error(${m})`,
  dayText: (e) => `strftime(${e}, '%Y-%m-%d')`,
  dayIndex: (day, e) => `(CAST(${e} AS DATE) - DATE '${day}' + 1)`,
  list: (items) => `[${items.join(', ')}]`,
  listAt: (list, i) => `${list}[${i}]`,
};

/** Athena (Trino): Glue lower-cases column names; map lookups use element_at (NULL when absent). */
export const athenaDialect: Dialect = {
  name: 'athena',
  col: (name) => quoteIdent(name.toLowerCase()),
  mapValue: (mapCol, key) => `element_at(${quoteIdent(mapCol.toLowerCase())}, ${key})`,
  contains: (e, n) => `(strpos(${e}, ${n}) > 0)`,
  startsWith: (e, p) => `starts_with(${e}, ${p})`,
  endsWith: (e, s) => `(strpos(reverse(${e}), reverse(${s})) = 1)`,
  period: (g, e) => `date_format(date_trunc('${g.toLowerCase()}', ${e}), '%Y-%m-%d')`,
  hour: (e) => `date_format(date_trunc('hour', ${e}), '%Y-%m-%dT%H:00:00Z')`,
  timestamp: (p) => `CAST(${p} AS timestamp)`,
  materialized: '',
  monthBound: true,
  // A cast of the message text to a number: Trino fails the query with `Cannot cast '<message>'`.
  fail: (m) => `CAST(${m} AS DOUBLE)`,
  dayText: (e) => `date_format(${e}, '%Y-%m-%d')`,
  dayIndex: (day, e) => `(date_diff('day', DATE '${day}', CAST(${e} AS DATE)) + 1)`,
  list: (items) => `ARRAY[${items.join(', ')}]`,
  listAt: (list, i) => `element_at(${list}, ${i})`,
};

/** Where user values go: `add` returns the SQL text that stands for the value. */
export interface Params {
  add(value: string): string;
  readonly values: string[];
}

/** DuckDB prepared-statement parameters `$1, $2…`, optionally after `offset` fixed ones. */
export function positionalParams(initial: string[] = []): Params {
  const values = [...initial];
  return {
    values,
    add(value) {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/**
 * Athena execution parameters: `?` in the text, and each parameter passed as a quoted literal
 * (Athena substitutes ExecutionParameters as SQL literals, so strings travel quoted).
 */
export function athenaParams(): Params {
  const values: string[] = [];
  return {
    values,
    add(value) {
      values.push(quoteLiteral(value));
      return '?';
    },
  };
}

/** For statements that take no parameters (view definitions): validated, escaped literals. */
export function inlineParams(): Params {
  return {
    values: [],
    add: (value) => quoteLiteral(value),
  };
}
