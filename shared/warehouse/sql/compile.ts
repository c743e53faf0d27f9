import { BadRequestError } from '../../errors';
import { type CostSeriesQuery, groupByList, QUERY_BOUNDS, SERIES_GRANULARITIES } from '../warehouse-query';
import { conversionFactorSql, currencyLiteral } from './conversion';
import { type CompileContext, fieldExpr, utcTimestamp, whereSql } from './expressions';
import { quoteLiteral } from './quote';

/**
 * Compiles the query model to SQL for either engine: the series and billing-info statements. Everything engine-specific sits behind
 * `Dialect`; every user value goes through a `Params` sink (bound parameters where the engine and
 * statement allow, validated literals otherwise), and every identifier is either one of ours or
 * resolved against the FOCUS schema / the org's catalog. Unknown fields and operators are a 400.
 */

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
  const { groupBy, measures, topN } = checkedSeries(q, measure);
  const aggregate = aggregateSql(q, groupBy, measures, source, ctx, extraFilter);
  const groupCols = groupBy.map((_, i) => `g${i}`);
  const limit = `LIMIT ${QUERY_BOUNDS.maxRows + 1}`;
  if (topN === undefined) {
    const sql = [...aggregate, `ORDER BY ${['period', ...groupCols].join(', ')}`, limit].join('\n');
    return { sql, params: ctx.params.values, groupBy };
  }
  const cols = groupCols.join(', ');
  const sql = [
    `WITH base AS${ctx.dialect.materialized} (${aggregate.join(' ')}),`,
    `ranked AS (SELECT period, ${cols}, value, dense_rank() OVER (ORDER BY total DESC, ${cols}) AS rk FROM (SELECT period, ${cols}, value, sum(value) OVER (PARTITION BY ${cols}) AS total FROM base) AS t)`,
    `SELECT period, ${groupCols.map((g) => `CASE WHEN rk <= ${topN} THEN ${g} ELSE '' END AS ${g}`).join(', ')}, rk > ${topN} AS other, sum(value) AS value`,
    'FROM ranked',
    `GROUP BY ${[1, ...groupBy.map((_, i) => i + 2), groupBy.length + 2].join(', ')}`,
    `ORDER BY ${['period', 'other', ...groupCols].join(', ')}`,
    limit,
  ].join('\n');
  return { sql, params: ctx.params.values, groupBy };
}

/** A series query's bounds checked: its group-by, its measures and its top N (grouped queries only). */
function checkedSeries(
  q: Omit<CostSeriesQuery, 'metricId'>,
  measure: string | readonly string[],
): { groupBy: string[]; measures: string[]; topN: number | undefined } {
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
  return { groupBy, measures, topN };
}

/**
 * The statement's lines summing each measure per period and group (columns `period`, `g0`…,
 * `value` or `value0`…), converted when the query asks a currency. Parameters are added in the
 * order they appear in the text (Athena binds `?` by position).
 */
function aggregateSql(
  q: Omit<CostSeriesQuery, 'metricId'>,
  groupBy: string[],
  measures: string[],
  source: string,
  ctx: CompileContext,
  extraFilter: ((ctx: CompileContext) => string) | undefined,
): string[] {
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
  return [
    `SELECT ${[`${period} AS period`, ...groupCols, ...valueCols].join(', ')}`,
    'FROM (',
    ...inner,
    ') AS a',
  ];
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

// shared/domain/budgets (not part of this split) imports the missing-rate error from here.
export { MissingRateError } from './conversion';
