import { createHash } from 'node:crypto';
import { BadRequestError, UnprocessableError } from '../../errors';
import {
  builtinDimensionOf,
  FOCUS_COLUMN_TYPES,
  focusColumnOf,
  METRIC_COLUMNS,
  type MetricId,
} from '../focus-columns';
import {
  type BillingInfo,
  type Catalog,
  type ComputedKind,
  type CostSeriesQuery,
  type CurrencyConversion,
  type Granularity,
  groupByList,
  isOperator,
  isWhereGroup,
  QUERY_BOUNDS,
  SERIES_GRANULARITIES,
  type SeriesRow,
  type WhereClause,
  type WhereRule,
} from '../warehouse-query';
import { quoteIdent, quoteLiteral, safeName } from './quote';

/**
 * Compiles the query model to SQL for either engine. Everything engine-specific sits behind
 * `Dialect`; every user value goes through a `Params` sink (bound parameters where the engine and
 * statement allow, validated literals otherwise), and every identifier is either one of ours or
 * resolved against the FOCUS schema / the org's catalog. Unknown fields and operators are a 400.
 */
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

export interface CompileContext {
  dialect: Dialect;
  params: Params;
  /** Computed dimensions the source holds; empty before the first refresh. */
  catalog?: Pick<Catalog, 'dimensions'>;
  /** Kinds of computed dimension a field may resolve to (a virtual dimension may not read another). */
  allowKinds?: readonly ComputedKind[];
}

/** The physical column name of a computed dimension: stable, lower-case, never user text. */
export function computedColumn(kind: ComputedKind, name: string): string {
  return safeName(`d_${createHash('sha256').update(`${kind}:${name}`).digest('hex').slice(0, 16)}`);
}

export function tagKeyOf(field: string): string | undefined {
  if (field.startsWith('tag:')) return field.slice(4);
  if (field.startsWith('tags.')) return field.slice(5);
  return undefined;
}

/**
 * The SQL expression of a dimension, resolved in this order: built-in dimension (short name or
 * FOCUS column), `tag:<key>`, a computed dimension of the catalog, an `x_` provider column, any
 * other text FOCUS column. Anything else is a 400 naming the field.
 */
export function fieldExpr(field: string, ctx: CompileContext): string {
  const builtin = builtinDimensionOf(field);
  if (builtin) return ctx.dialect.col(builtin.column);
  const tagKey = tagKeyOf(field);
  if (tagKey !== undefined) {
    if (!tagKey || tagKey.length > 512) throw new BadRequestError(`Invalid tag key in field ${field}`);
    return ctx.dialect.mapValue('Tags', ctx.params.add(tagKey));
  }
  const computed = ctx.catalog?.dimensions.find(
    (d) => d.name === field && (!ctx.allowKinds || ctx.allowKinds.includes(d.kind)),
  );
  if (computed) return ctx.dialect.col(safeName(computed.column));
  if (/^x_/i.test(field) && field.length <= 200)
    return ctx.dialect.mapValue('x_columns', ctx.params.add(field));
  const focus = focusColumnOf(field);
  if (focus && FOCUS_COLUMN_TYPES[focus] === 'string') return ctx.dialect.col(focus);
  throw new BadRequestError(`Unknown dimension ${JSON.stringify(field)}`);
}

function ruleSql(rule: WhereRule, ctx: CompileContext): string {
  if (!isOperator(rule.operator))
    throw new BadRequestError(`Unknown operator ${JSON.stringify(rule.operator)}`);
  if (!Array.isArray(rule.value)) throw new BadRequestError(`Rule on ${rule.field}: value must be a list`);
  if (rule.value.length > QUERY_BOUNDS.valuesPerRule)
    throw new BadRequestError(`Rule on ${rule.field}: at most ${QUERY_BOUNDS.valuesPerRule} values`);
  const values = rule.value.map((v) => {
    const s = String(v);
    if (s.length > QUERY_BOUNDS.valueLength)
      throw new BadRequestError(`Rule on ${rule.field}: value too long`);
    return s;
  });
  // The field is resolved afresh at each place it appears, so positional parameters (Athena's
  // `?`) are added in text order.
  const e = () => fieldExpr(rule.field, ctx);
  fieldExpr(rule.field, { ...ctx, params: inlineParams() });
  const d = ctx.dialect;
  const list = () => values.map((v) => ctx.params.add(v)).join(', ');
  const any = (f: (expr: string, p: string) => string) =>
    values.length
      ? `(${values
          .map((v) => {
            const expr = e();
            return f(expr, ctx.params.add(v));
          })
          .join(' OR ')})`
      : 'FALSE';
  const none = (f: (expr: string, p: string) => string) => {
    if (!values.length) return 'TRUE';
    const isNull = `${e()} IS NULL`;
    return `(${isNull} OR NOT ${any(f)})`;
  };
  switch (rule.operator) {
    case 'in':
    case '=':
      if (!values.length) return 'FALSE';
      return `(${e()} IN (${list()}))`;
    case 'notIn':
    case '!=': {
      if (!values.length) return 'TRUE';
      const isNull = `${e()} IS NULL`;
      const notIn = `${e()} NOT IN (${list()})`;
      return `(${isNull} OR ${notIn})`;
    }
    case 'contains':
      return any((x, p) => d.contains(x, p));
    case 'doesNotContain':
      return none((x, p) => d.contains(x, p));
    case 'beginsWith':
      return any((x, p) => d.startsWith(x, p));
    case 'doesNotBeginWith':
      return none((x, p) => d.startsWith(x, p));
    case 'endsWith':
      return any((x, p) => d.endsWith(x, p));
    case 'doesNotEndWith':
      return none((x, p) => d.endsWith(x, p));
    case 'null':
      return `(${e()} IS NULL)`;
    case 'notNull':
      return `(${e()} IS NOT NULL)`;
  }
}

/** A where clause as one boolean SQL expression (`TRUE` when empty). */
export function whereSql(clause: WhereClause | null | undefined, ctx: CompileContext, depth = 1): string {
  if (!clause) return 'TRUE';
  if (depth > QUERY_BOUNDS.whereDepth)
    throw new BadRequestError(`whereClause groups nest at most ${QUERY_BOUNDS.whereDepth} levels`);
  if (clause.combinator !== 'and' && clause.combinator !== 'or')
    throw new BadRequestError('whereClause combinator must be "and" or "or"');
  if (!Array.isArray(clause.rules)) throw new BadRequestError('whereClause rules must be a list');
  if (clause.rules.length > QUERY_BOUNDS.rulesPerGroup)
    throw new BadRequestError(`whereClause groups hold at most ${QUERY_BOUNDS.rulesPerGroup} rules`);
  const parts = clause.rules.map((r) => (isWhereGroup(r) ? whereSql(r, ctx, depth + 1) : ruleSql(r, ctx)));
  const joined = parts.length ? `(${parts.join(clause.combinator === 'and' ? ' AND ' : ' OR ')})` : 'TRUE';
  return clause.not ? `(NOT ${joined})` : joined;
}

/** The summed expression of a cost metric id (see METRIC_COLUMNS for the mapping). */
export function metricSql(metricId: MetricId, dialect: Dialect): string {
  const m = METRIC_COLUMNS[metricId] as { column: string; fallback?: string } | undefined;
  if (!m) throw new BadRequestError(`Unknown metricId ${JSON.stringify(metricId)}`);
  return m.fallback
    ? `coalesce(${dialect.col(m.column)}, ${dialect.col(m.fallback)})`
    : dialect.col(m.column);
}

/** `YYYY-MM-DD` or an ISO date-time, as `YYYY-MM-DD HH:MM:SS` UTC. */
export function utcTimestamp(value: string, what: string): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(dateOnly ? `${value}T00:00:00Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms))
    throw new BadRequestError(`${what} must be a date (YYYY-MM-DD) or an ISO date-time`);
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export interface CompiledQuery {
  sql: string;
  params: string[];
  groupBy: string[];
}

/**
 * Billing months that can hold charges of `[start, end)`: one month either side of the range's
 * months, since a charge's billing month (the invoice month) may differ from its charge month at
 * the edges. Used for partition pruning (Athena's `billing_month` partitions); values are ours
 * (`YYYY-MM` computed from validated timestamps), inlined as literals.
 */
export function billingMonthRange(start: string, end: string): { from: string; to: string } {
  const s = new Date(`${start.replace(' ', 'T')}Z`);
  const e = new Date(Date.parse(`${end.replace(' ', 'T')}Z`) - 1);
  const month = (y: number, m: number) => new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7);
  return {
    from: month(s.getUTCFullYear(), s.getUTCMonth() - 1),
    to: month(e.getUTCFullYear(), e.getUTCMonth() + 1),
  };
}

/**
 * A series query: one row per period and group with the summed measure, in one statement. `source`
 * is the table or view to read (the org's enriched view once refreshed) and holds rows of every
 * organisation, so the org filter is always the first predicate; the billing-month bounds prune
 * partitions. With `topN` (and a groupBy) the statement also ranks the groups by their total and
 * sums the groups past N into one `other` row per period.
 *
 * The rows are grouped by the truncated timestamp and the bucket is formatted as text only on the
 * aggregated rows (formatting a million timestamps costs more than the aggregation itself).
 *
 * `measure` may be a list of measures when there is no groupBy: the statement then sums each one
 * over the same rows (one scan for several cost queries that differ only in their metric), into
 * columns `value0`, `value1`…; see `toSeriesRowsByMeasure`.
 */
export function seriesSql(
  q: Omit<CostSeriesQuery, 'metricId'>,
  measure: string | readonly string[],
  source: string,
  ctx: CompileContext,
  extraFilter?: (ctx: CompileContext) => string,
): CompiledQuery {
  const groupBy = groupByList(q.groupBy);
  if (groupBy.length > QUERY_BOUNDS.groupBy)
    throw new BadRequestError(`groupBy takes at most ${QUERY_BOUNDS.groupBy} dimensions`);
  if (!SERIES_GRANULARITIES.includes(q.granularity))
    throw new BadRequestError('granularity must be Hour, Day, Week, Month or Period');
  const measures = typeof measure === 'string' ? [measure] : [...measure];
  if (!measures.length || (measures.length > 1 && groupBy.length))
    throw new Error('several measures in one series statement need an ungrouped query');
  const topN = groupBy.length ? q.topN : undefined;
  if (topN !== undefined && (!Number.isInteger(topN) || topN < 1 || topN > QUERY_BOUNDS.maxRows))
    throw new BadRequestError('topN must be a positive integer');
  const start = utcTimestamp(q.start, 'start');
  const end = utcTimestamp(q.end, 'end');
  const months = billingMonthRange(start, end);
  const d = ctx.dialect;
  const ts = d.col('ChargePeriodStart');
  const truncUnit = q.granularity === 'Hour' ? 'hour' : q.granularity.toLowerCase();
  // With a conversion the rows are first summed per (hour or day, billing currency, groups) and
  // each partial sum is multiplied by its day's factor before the sums to the requested bucket:
  // Σ cost·rate(day) = Σ_day rate(day)·Σ cost of that day, so the figures are the same while the
  // factor is looked up for thousands of partial rows instead of every billing row.
  const conversion = q.conversion;
  const fine = q.granularity === 'Hour' ? 'hour' : 'day';
  // Parameters are added in the order they appear in the text (Athena binds `?` by position).
  // One currency for every row of the org (the adapter knows): no currency column to read, and
  // for day or hour buckets no second level either (each bucket's sum times its day's factor).
  const one = conversion?.rowCurrency;
  const twoLevels = conversion !== undefined && !(one && truncUnit === fine);
  const bucket =
    q.granularity === 'Period'
      ? ctx.params.add(start.slice(0, 10))
      : twoLevels && truncUnit === fine
        ? 'fine'
        : `date_trunc('${truncUnit}', ${twoLevels ? 'fine' : ts})`;
  const period =
    q.granularity === 'Hour'
      ? d.hour('bucket')
      : q.granularity === 'Period'
        ? 'bucket'
        : d.period(q.granularity, 'bucket');
  const groups = groupBy.map((g, i) => `coalesce(${fieldExpr(g, ctx)}, '') AS g${i}`);
  const org = ctx.params.add(q.orgId);
  const from = ctx.params.add(start);
  const to = ctx.params.add(end);
  const where = whereSql(q.whereClause, ctx);
  const extra = extraFilter ? ` AND ${extraFilter(ctx)}` : '';
  const groupCols = groupBy.map((_, i) => `g${i}`);
  const valueCols = measures.length === 1 ? ['value'] : measures.map((_, i) => `value${i}`);
  const filter = `WHERE ${d.col('org_id')} = ${org}${d.monthBound ? ` AND ${d.col('billing_month')} BETWEEN ${quoteLiteral(months.from)} AND ${quoteLiteral(months.to)}` : ''} AND ${ts} >= ${d.timestamp(from)} AND ${ts} < ${d.timestamp(to)}${extra} AND ${where}`;
  const curKeys = one ? [] : [`${d.col('BillingCurrency')} AS cur`];
  const factorOf = (at: string) =>
    conversion ? conversionFactorSql(conversion, d, one ? currencyLiteral(one) : 'cur', at) : '1';
  const inner = twoLevels
    ? [
        `SELECT ${[
          `${bucket} AS bucket`,
          ...groupCols,
          ...valueCols.map((c, i) => `coalesce(sum(p${i} * ${factorOf('fine')}), 0) AS ${c}`),
        ].join(', ')}`,
        'FROM (',
        `SELECT ${[`date_trunc('${fine}', ${ts}) AS fine`, ...curKeys, ...groups, ...measures.map((m, i) => `sum(${m}) AS p${i}`)].join(', ')}`,
        `FROM ${source}`,
        filter,
        `GROUP BY ${[1, ...curKeys.map(() => 2), ...groupBy.map((_, i) => i + 2 + curKeys.length)].join(', ')}`,
        ') AS f',
        `GROUP BY ${[1, ...groupBy.map((_, i) => i + 2)].join(', ')}`,
      ]
    : [
        `SELECT ${[
          `${bucket} AS bucket`,
          ...groups,
          ...measures.map(
            (m, i) =>
              `coalesce(sum(${m})${conversion ? ` * ${factorOf(`date_trunc('${fine}', ${ts})`)}` : ''}, 0) AS ${valueCols[i]}`,
          ),
        ].join(', ')}`,
        `FROM ${source}`,
        filter,
        `GROUP BY ${[1, ...groupBy.map((_, i) => i + 2)].join(', ')}`,
      ];
  const aggregate = [
    `SELECT ${[`${period} AS period`, ...groupCols, ...valueCols].join(', ')}`,
    'FROM (',
    ...inner,
    ') AS a',
  ];
  const limit = `LIMIT ${QUERY_BOUNDS.maxRows + 1}`;
  if (topN === undefined) {
    const sql = [...aggregate, `ORDER BY ${['period', ...groupCols].join(', ')}`, limit].join('\n');
    return { sql, params: ctx.params.values, groupBy };
  }
  const cols = groupCols.join(', ');
  const sql = [
    `WITH base AS${d.materialized} (${aggregate.join(' ')}),`,
    `ranked AS (SELECT period, ${cols}, value, dense_rank() OVER (ORDER BY total DESC, ${cols}) AS rk FROM (SELECT period, ${cols}, value, sum(value) OVER (PARTITION BY ${cols}) AS total FROM base) AS t)`,
    `SELECT period, ${groupCols.map((g) => `CASE WHEN rk <= ${topN} THEN ${g} ELSE '' END AS ${g}`).join(', ')}, rk > ${topN} AS other, sum(value) AS value`,
    'FROM ranked',
    `GROUP BY ${[1, ...groupBy.map((_, i) => i + 2), groupBy.length + 2].join(', ')}`,
    `ORDER BY ${['period', 'other', ...groupCols].join(', ')}`,
    limit,
  ].join('\n');
  return { sql, params: ctx.params.values, groupBy };
}

/** The text a statement fails with when a row has no rate: `FX_RATE_MISSING <currency> <day>`. */
const FX_MISSING = 'FX_RATE_MISSING';

/** A row needed a rate that is not loaded: 422 naming the currency and the day. */
export class MissingRateError extends UnprocessableError {
  override name = 'MissingRateError';
  constructor(
    readonly currency: string,
    readonly day: string,
    readonly target: string | undefined,
  ) {
    super(
      `No exchange rate for ${currency}${target ? ` to ${target}` : ''} on ${day} (nor in the 7 days before): load the euro reference rates for that day (npm run fx -- load, or POST /admin/fx-rates)`,
    );
  }
}

/**
 * The factor a series statement multiplies each partial sum by: 1 for sums in the target currency;
 * else the element of the currency's list of per-day factors at the sum's charge day (a list
 * literal indexed by days since `from`: arithmetic per row, no join). `cur` and `at` are the
 * expressions of the billing currency and of the (hour- or day-truncated) charge timestamp. A sum
 * whose factor is NULL (no rate that day, or a currency without factors) fails the statement,
 * naming the currency and the day: never 1:1. Every value is ours and checked (codes, dates,
 * finite numbers), so the lists are inlined. The statement's range filter keeps every row on or
 * after `from`.
 */
function conversionFactorSql(c: CurrencyConversion, d: Dialect, cur: string, at: string): string {
  const code = currencyLiteral;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(c.from)) throw new Error(`invalid conversion start ${c.from}`);
  const origin = Date.parse(`${c.from}T00:00:00Z`);
  const lists = new Map<string, (string | null)[]>();
  for (const f of c.factors) {
    const at = (Date.parse(`${f.day}T00:00:00Z`) - origin) / 86_400_000;
    if (!Number.isInteger(at) || at < 0 || at > 100_000 || !Number.isFinite(f.factor) || f.factor <= 0)
      throw new Error(`invalid conversion factor ${JSON.stringify(f)}`);
    const list = lists.get(f.currency) ?? [];
    while (list.length <= at) list.push(null);
    list[at] = f.factor.toExponential();
    lists.set(f.currency, list);
  }
  const index = d.dayIndex(c.from, at);
  const message = `'${FX_MISSING} ' || coalesce(${cur}, '(none)') || ' ' || ${d.dayText(at)} || ' ' || ${code(c.target)}`;
  const branches = [...lists.entries()].map(
    ([currency, list]) =>
      `WHEN ${cur} = ${code(currency)} THEN ${d.listAt(d.list(list.map((x) => x ?? 'NULL')), index)}`,
  );
  const lookup = branches.length ? `CASE ${branches.join(' ')} END` : 'CAST(NULL AS DOUBLE)';
  return `(CASE WHEN ${cur} = ${code(c.target)} THEN 1 ELSE coalesce(${lookup}, ${d.fail(message)}) END)`;
}

/**
 * An amount converted row by row at its charge day's factor, for the statements that are not cost
 * series (the refresh's candidate and dimension-value figures): `amount` times the same factor
 * lookup as the series statements (`conversionFactorSql`), so a row without a rate fails the
 * statement naming its currency and day. A row charged before the factors' first day fails too
 * (a list index below 1 would read from the list's end on DuckDB). Without a conversion the amount
 * is returned as it is.
 */
export function convertedAmountSql(
  amount: string,
  c: CurrencyConversion | undefined,
  d: Dialect,
  cols: { currency: string; chargeStart: string } = {
    currency: d.col('BillingCurrency'),
    chargeStart: d.col('ChargePeriodStart'),
  },
): string {
  if (!c) return amount;
  const day = `date_trunc('day', ${cols.chargeStart})`;
  const early = `'${FX_MISSING} ' || coalesce(${cols.currency}, '(none)') || ' ' || ${d.dayText(day)} || ' ' || ${currencyLiteral(c.target)}`;
  const factor = conversionFactorSql(c, d, cols.currency, day);
  return `(${amount} * (CASE WHEN ${cols.currency} = ${currencyLiteral(c.target)} THEN 1 WHEN ${d.dayIndex(c.from, day)} < 1 THEN ${d.fail(early)} ELSE ${factor} END))`;
}

/** A checked ISO 4217 code as an SQL literal. */
function currencyLiteral(x: string): string {
  if (!/^[A-Z]{3}$/.test(x)) throw new Error(`invalid currency code ${JSON.stringify(x)}`);
  return `'${x}'`;
}

/** The MissingRateError of a statement that failed for a missing rate, else the error itself. */
export function missingRateOf(error: unknown): unknown {
  const text = error instanceof Error ? error.message : String(error);
  const m = new RegExp(`${FX_MISSING} (\\S+) (\\d{4}-\\d{2}-\\d{2})(?: ([A-Z]{3}))?`).exec(text);
  return m ? new MissingRateError(m[1]!, m[2]!, m[3]) : error;
}

/**
 * The latest charge day and the billing currencies of an org's recent rows (one row per currency).
 * `source` is the billing table or the Athena base table; the month bound prunes partitions.
 */
export function billingInfoSql(
  orgId: string,
  sinceMonth: string,
  source: string,
  ctx: CompileContext,
): CompiledQuery {
  if (!/^\d{4}-\d{2}$/.test(sinceMonth)) throw new BadRequestError(`Invalid billing month ${sinceMonth}`);
  const d = ctx.dialect;
  const org = ctx.params.add(orgId);
  const sql = [
    `SELECT ${d.col('BillingCurrency')} AS currency, ${d.period('Day', `max(${d.col('ChargePeriodStart')})`)} AS last_day`,
    `FROM ${source}`,
    `WHERE ${d.col('org_id')} = ${org} AND ${d.col('billing_month')} >= ${quoteLiteral(sinceMonth)}`,
    'GROUP BY 1',
    'ORDER BY 1',
  ].join('\n');
  return { sql, params: ctx.params.values, groupBy: [] };
}

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
