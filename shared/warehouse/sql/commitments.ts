import { BadRequestError } from '../../errors';
import type { WhereClause } from '../../model/where-clause';
import type { CurrencyConversion } from '../warehouse-query';
import { convertedAmountSql } from './conversion';
import { type CompileContext, fieldExpr, utcTimestamp, whereSql } from './expressions';

/**
 * The commitment-discount statements of both adapters (docs/commitments.md): the facts the
 * analytics compute utilisation, coverage and savings from, and the terms of each commitment.
 * One statement each, valid in DuckDB and in Trino (Athena); everything engine-specific goes
 * through the `Dialect`.
 */

/** What the facts may be grouped by, besides the commitment and the time bucket. */
export const COMMITMENT_DIMENSIONS = ['provider', 'account', 'type', 'category', 'service'] as const;
export type CommitmentDimension = (typeof COMMITMENT_DIMENSIONS)[number];

const DIMENSION_COLUMNS: Record<CommitmentDimension, string> = {
  provider: 'ProviderName',
  account: 'SubAccountId',
  type: 'CommitmentDiscountType',
  category: 'CommitmentDiscountCategory',
  service: 'ServiceName',
};

export interface CommitmentFactsQuery {
  orgId: string;
  /** Inclusive start and exclusive end: `YYYY-MM-DD` or an ISO date-time (UTC). */
  start: string;
  end: string;
  /** `day` buckets (`YYYY-MM-DD`) or `hour` buckets (`YYYY-MM-DDTHH:00:00Z`). */
  grain: 'day' | 'hour';
  groupBy: readonly CommitmentDimension[];
  /**
   * Which usage lines that name no commitment are eligible for one (the domain's per-provider
   * rule). Only those lines, and every line that names a commitment, are read.
   */
  eligible: WhereClause;
  conversion?: CurrencyConversion;
}

/** One bucket × commitment × group: amounts in the conversion's target (else the billing currency). */
export interface CommitmentFact {
  bucket: string;
  /** `''` for the eligible usage that names no commitment. */
  commitmentId: string;
  group: Partial<Record<CommitmentDimension, string>>;
  /** EffectiveCost of the commitment's `Used` lines that are not credits (what it consumed). */
  used: number;
  /** EffectiveCost of its `Unused` lines. */
  unused: number;
  /** EffectiveCost of its purchase lines without a status (a fee the export does not amortise). */
  fee: number;
  /** ListCost of its `Used` non-credit lines with a non-negative BilledCost (covered usage at on-demand). */
  coveredList: number;
  /** Its `Used` credit lines made positive (a discount written as a credit: the on-demand value covered). */
  credit: number;
  /** On-demand equivalent (ListCost, else EffectiveCost) of eligible usage naming no commitment. */
  eligibleList: number;
}

const MEASURES = ['used', 'unused', 'fee', 'covered_list', 'credit', 'eligible_list'] as const;

/**
 * One row per bucket, billing currency, commitment and group with the six measures, then each
 * converted at its day's factor (a missing rate fails the statement naming the currency and the
 * day: never 1:1) and summed per bucket, commitment and group. `source` holds every org's rows; the
 * org filter comes first (Athena's partitions are pruned by the source itself).
 */
export function commitmentFactsSql(
  q: CommitmentFactsQuery,
  source: string,
  ctx: CompileContext,
): { sql: string; params: string[] } {
  const d = ctx.dialect;
  if (q.grain !== 'day' && q.grain !== 'hour') throw new BadRequestError('grain must be day or hour');
  const start = utcTimestamp(q.start, 'start');
  const end = utcTimestamp(q.end, 'end');
  const ts = d.col('ChargePeriodStart');
  const ec = d.col('EffectiveCost');
  const status = d.col('CommitmentDiscountStatus');
  const cat = d.col('ChargeCategory');
  const cid = d.col('CommitmentDiscountId');
  const used = `${status} = 'Used' AND ${cat} <> 'Credit'`;
  const sums = [
    `sum(CASE WHEN ${used} THEN ${ec} ELSE 0 END)`,
    `sum(CASE WHEN ${status} = 'Unused' THEN ${ec} ELSE 0 END)`,
    `sum(CASE WHEN ${cid} IS NOT NULL AND ${status} IS NULL AND ${cat} = 'Purchase' THEN ${ec} ELSE 0 END)`,
    `sum(CASE WHEN ${used} AND ${d.col('BilledCost')} >= 0 THEN coalesce(${d.col('ListCost')}, 0) ELSE 0 END)`,
    `sum(CASE WHEN ${status} = 'Used' AND ${cat} = 'Credit' THEN -${ec} ELSE 0 END)`,
    `sum(CASE WHEN ${cid} IS NULL THEN coalesce(${d.col('ListCost')}, ${ec}, 0) ELSE 0 END)`,
  ];
  const groups = q.groupBy.map((g, i) => {
    const column = DIMENSION_COLUMNS[g];
    if (!column) throw new BadRequestError(`Unknown commitment dimension ${JSON.stringify(g)}`);
    return `coalesce(${d.col(column)}, '') AS g${i}`;
  });
  const groupCols = q.groupBy.map((_, i) => `g${i}`);
  const org = ctx.params.add(q.orgId);
  const from = ctx.params.add(start);
  const to = ctx.params.add(end);
  const eligible = whereSql(q.eligible, ctx);
  const label = q.grain === 'hour' ? d.hour('bucket') : d.dayText('bucket');
  const keys = ['bucket', 'cid', ...groupCols];
  const inner = [
    `SELECT ${[
      `date_trunc('${q.grain}', ${ts}) AS bucket`,
      `coalesce(${cid}, '') AS cid`,
      ...groups,
      ...(q.conversion ? [`${d.col('BillingCurrency')} AS cur`] : []),
      ...sums.map((s, i) => `${s} AS ${MEASURES[i]}`),
    ].join(', ')}`,
    `FROM ${source}`,
    `WHERE ${d.col('org_id')} = ${org} AND ${ts} >= ${d.timestamp(from)} AND ${ts} < ${d.timestamp(to)}`,
    `AND (${cid} IS NOT NULL OR (${cat} = 'Usage' AND coalesce(${d.col('PricingCategory')}, '') <> 'Dynamic' AND ${eligible}))`,
    `GROUP BY ${[...keys.map((_, i) => i + 1), ...(q.conversion ? [keys.length + 1] : [])].join(', ')}`,
  ];
  // With a conversion, each (bucket, currency) sum is multiplied by its day's factor, then summed.
  const c = q.conversion;
  const aggregated = c
    ? [
        `SELECT ${[...keys, ...MEASURES.map((m) => `sum(${convertedAmountSql(m, c, d, { currency: 'cur', chargeStart: 'bucket' })}) AS ${m}`)].join(', ')}`,
        'FROM (',
        ...inner,
        ') AS f',
        `GROUP BY ${keys.join(', ')}`,
      ]
    : inner;
  const sql = [
    `SELECT ${[`${label} AS bucket`, 'cid', ...groupCols, ...MEASURES].join(', ')}`,
    'FROM (',
    ...aggregated,
    ') AS a',
    `ORDER BY ${['1', 'cid', ...groupCols].join(', ')}`,
  ].join('\n');
  return { sql, params: ctx.params.values };
}

export function toCommitmentFacts(
  rows: Record<string, unknown>[],
  groupBy: readonly CommitmentDimension[],
): CommitmentFact[] {
  return rows.map((r) => ({
    bucket: String(r.bucket),
    commitmentId: String(r.cid ?? ''),
    group: Object.fromEntries(groupBy.map((g, i) => [g, String(r[`g${i}`] ?? '')])),
    used: Number(r.used ?? 0),
    unused: Number(r.unused ?? 0),
    fee: Number(r.fee ?? 0),
    coveredList: Number(r.covered_list ?? 0),
    credit: Number(r.credit ?? 0),
    eligibleList: Number(r.eligible_list ?? 0),
  }));
}

/** A commitment as its lines describe it; each term from the latest line that carries it. */
export interface CommitmentTerms {
  id: string;
  name: string | null;
  provider: string | null;
  type: string | null;
  category: string | null;
  term: string | null;
  purchaseOption: string | null;
  start: string | null;
  end: string | null;
  hourlyCommitment: number | null;
  region: string | null;
  instanceFamily: string | null;
  /** First and last charge day of its lines in the range read. */
  firstDay: string;
  lastDay: string;
}

const TERM_FIELDS = [
  ['name', 'CommitmentDiscountName'],
  ['provider', 'ProviderName'],
  ['type', 'CommitmentDiscountType'],
  ['category', 'CommitmentDiscountCategory'],
  ['term', 'x_CommitmentTerm'],
  ['purchase_option', 'x_CommitmentPurchaseOption'],
  ['term_start', 'x_CommitmentStart'],
  ['term_end', 'x_CommitmentEnd'],
  ['hourly', 'x_CommitmentHourly'],
  ['region', 'x_CommitmentRegion'],
  ['family', 'x_CommitmentInstanceFamily'],
] as const;

/**
 * Every commitment of the org with lines in `[start, end)` (all its lines without a range), each
 * field the value of its latest line that has one (`max_by … FILTER`, the same in both engines).
 */
export function commitmentTermsSql(
  orgId: string,
  range: { start: string; end: string } | undefined,
  source: string,
  ctx: CompileContext,
): { sql: string; params: string[] } {
  const d = ctx.dialect;
  const ts = d.col('ChargePeriodStart');
  const cid = d.col('CommitmentDiscountId');
  const fields = TERM_FIELDS.map(([alias, field]) => {
    const e = fieldExpr(field, ctx);
    return `max_by(${e}, ${ts}) FILTER (WHERE ${fieldExpr(field, ctx)} IS NOT NULL) AS ${alias}`;
  });
  const org = ctx.params.add(orgId);
  const bounds = range
    ? ` AND ${ts} >= ${d.timestamp(ctx.params.add(utcTimestamp(range.start, 'start')))} AND ${ts} < ${d.timestamp(ctx.params.add(utcTimestamp(range.end, 'end')))}`
    : '';
  const sql = [
    `SELECT ${cid} AS id, ${fields.join(', ')}, ${d.dayText(`min(${ts})`)} AS first_day, ${d.dayText(`max(${ts})`)} AS last_day`,
    `FROM ${source}`,
    `WHERE ${d.col('org_id')} = ${org}${bounds} AND ${cid} IS NOT NULL`,
    'GROUP BY 1',
    'ORDER BY 1',
  ].join('\n');
  return { sql, params: ctx.params.values };
}

export function toCommitmentTerms(rows: Record<string, unknown>[]): CommitmentTerms[] {
  const text = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
  return rows.map((r) => {
    const hourly = text(r.hourly);
    return {
      id: String(r.id),
      name: text(r.name),
      provider: text(r.provider),
      type: text(r.type),
      category: text(r.category),
      term: text(r.term),
      purchaseOption: text(r.purchase_option),
      start: text(r.term_start),
      end: text(r.term_end),
      hourlyCommitment: hourly === null || !Number.isFinite(Number(hourly)) ? null : Number(hourly),
      region: text(r.region),
      instanceFamily: text(r.family),
      firstDay: String(r.first_day),
      lastDay: String(r.last_day),
    };
  });
}
