import { createHash } from 'node:crypto';
import { BadRequestError } from '../../errors';
import type { EnrichmentFeature, LabelFeature, VdimFeature } from '../../model/view-features';
import { FOCUS_COLUMN_TYPES, type FocusColumn, focusColumnOf } from '../focus-columns';
import { computedOutputs, enrichmentChains, labelColumns, vdimColumns } from '../sql/computed-dimensions';
import { convertedAmountSql } from '../sql/conversion';
import { athenaDialect, inlineParams } from '../sql/dialect';
import { utcTimestamp } from '../sql/expressions';
import { quoteIdent, quoteLiteral } from '../sql/quote';
import type { Catalog, ComputedDimension, CurrencyConversion } from '../warehouse-query';

/**
 * SQL of the Athena adapter. The curated table is partitioned by `org_id` with injected partition
 * projection, so every statement names the organisation as a literal equality on the base table
 * (the org id is checked against a strict pattern first). Athena cannot rewrite one
 * organisation's rows cheaply and the functions have no Glue write access, so there is no
 * enriched table: the refresh stores the organisation's features (labels, enrichments with their
 * passing condition inputs, virtual dimensions) and every query reads the base table through a
 * derived table that computes them (`featureSource`).
 */
export interface AthenaTable {
  database: string;
  table: string;
}

/** Longest derived-table text we inline (Athena refuses query strings over 256 KB). */
export const MAX_SOURCE_CHARS = 200_000;
export const MAX_ATHENA_CONDITION_TUPLES = 10_000;

export function tableRef(t: AthenaTable): string {
  return `${quoteIdent(t.database)}.${quoteIdent(t.table)}`;
}

export function orgLiteral(orgId: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(orgId)) throw new BadRequestError('Invalid organisation id');
  return quoteLiteral(orgId);
}

export function monthsLiteral(months: string[]): string {
  for (const m of months)
    if (!/^\d{4}-\d{2}$/.test(m)) throw new BadRequestError(`Invalid billing month ${m}`);
  return months.length ? months.map(quoteLiteral).join(', ') : 'NULL';
}

/**
 * Billing months a charge-period range may be billed in: the months of `[start, end)` widened
 * by BILLING_MONTH_SLACK on each side. A row's `billing_month` is the month of its
 * BillingPeriodStart, and providers bill a charge in a neighbouring month (a charge of 30
 * September 22:00 billed in October is in the FOCUS sample), so the exact months would lose it.
 */
export const BILLING_MONTH_SLACK = 1;
const MAX_RANGE_MONTHS = 1_200;

export function rangeMonths(start: string, end: string, slack = BILLING_MONTH_SLACK): string[] {
  const ms = (value: string, what: string) => Date.parse(`${utcTimestamp(value, what).replace(' ', 'T')}Z`);
  const monthOf = (t: number) => new Date(t).getUTCFullYear() * 12 + new Date(t).getUTCMonth();
  const from = ms(start, 'start');
  const first = monthOf(from) - slack;
  const last = monthOf(Math.max(from, ms(end, 'end') - 1)) + slack;
  if (last - first >= MAX_RANGE_MONTHS) throw new BadRequestError('The date range is too long');
  const out: string[] = [];
  for (let m = first; m <= last; m++)
    out.push(`${String(Math.floor(m / 12)).padStart(4, '0')}-${String((m % 12) + 1).padStart(2, '0')}`);
  return out;
}

export interface EnrichmentBinding {
  doc: EnrichmentFeature;
  /** Inputs that satisfy the document's conditions (as text), when it has conditions. */
  passing?: { fields: FocusColumn[]; tuples: (string | null)[][] };
}

export interface AthenaFeatures {
  labels: LabelFeature[];
  vdims: VdimFeature[];
  enrichments: EnrichmentBinding[];
}

/** What the refresh stores for an organisation: the catalog plus the features behind it. */
export interface AthenaCatalog extends Catalog {
  features: AthenaFeatures;
}

/** A condition input as text, the same way in the refresh's distinct query and in the join. */
export function conditionInput(field: FocusColumn, alias = 'b'): string {
  const col = `${alias}.${athenaDialect.col(field)}`;
  switch (FOCUS_COLUMN_TYPES[field]) {
    case 'number':
      return `CAST(${col} AS VARCHAR)`;
    case 'timestamp':
      return `date_format(${col}, '%Y-%m-%d %H:%i:%s')`;
    case 'tags':
      return `json_format(CAST(${col} AS JSON))`;
    default:
      return col;
  }
}

/** An enrichment's key column: a text FOCUS column (entry keys are text; Trino compares no varchar with a number). */
export function textKeyColumn(doc: EnrichmentFeature): FocusColumn | undefined {
  const key = focusColumnOf(doc.keyField);
  return key && FOCUS_COLUMN_TYPES[key] === 'string' ? key : undefined;
}

const text = (v: string | null) => (v === null ? 'CAST(NULL AS VARCHAR)' : quoteLiteral(v));

/** The distinct condition inputs among the rows an enrichment could apply to (refresh time). */
export function conditionTuplesSql(
  t: AthenaTable,
  orgId: string,
  doc: EnrichmentFeature,
  fields: FocusColumn[],
): string {
  const key = textKeyColumn(doc);
  if (!key) throw new BadRequestError(`keyField ${doc.keyField} is not a text FOCUS column`);
  const keys = [...new Set(doc.entries.map((e) => e.key))];
  return [
    `SELECT DISTINCT ${fields.map((f, i) => `${conditionInput(f)} AS c${i}`).join(', ')}`,
    `FROM ${tableRef(t)} b`,
    `WHERE b."org_id" = ${orgLiteral(orgId)} AND b.${athenaDialect.col(key)} IN (${keys.map(quoteLiteral).join(', ') || 'NULL'})`,
    `LIMIT ${MAX_ATHENA_CONDITION_TUPLES + 1}`,
  ].join('\n');
}

/**
 * The organisation's rows with its computed dimensions, as a derived table:
 * (0) base rows of the org with each label's merged sources and each enrichment's lookup (a
 * VALUES table joined on its key column, and the passing condition inputs joined on theirs);
 * (1) labels mapped and enrichment columns combined; (2) virtual dimensions.
 */
export function featureSource(
  t: AthenaTable,
  orgId: string,
  features: AthenaFeatures | undefined,
  months?: string[],
): { sql: string; dimensions: ComputedDimension[]; warnings: string[] } {
  // The partition predicates sit on the base table's own WHERE: the organisation always, the
  // billing months when the statement reads a window.
  const partitions = (alias: string) =>
    `${alias}"org_id" = ${orgLiteral(orgId)}${months ? ` AND ${alias}"billing_month" IN (${monthsLiteral(months)})` : ''}`;
  const base = `SELECT * FROM ${tableRef(t)} WHERE ${partitions('')}`;
  if (!features) return { sql: `(${base})`, dimensions: [], warnings: [] };
  const warnings: string[] = [];
  const ctx = { dialect: athenaDialect, params: inlineParams() };
  const { inner, outer: labelExprs } = labelColumns(features.labels, ctx, warnings);

  const joins: string[] = [];
  const applied: { doc: EnrichmentFeature; index: number }[] = [];
  const conditional = new Set<number>();
  features.enrichments.forEach(({ doc, passing }, index) => {
    const key = textKeyColumn(doc);
    const targets = doc.targetColumns.map((c) => c.name);
    const seen = new Set<string>();
    const rows = doc.entries
      .filter((e) => !seen.has(e.key) && seen.add(e.key))
      .map((e) => `(${[text(e.key), ...targets.map((c) => text(e.then[c] ?? null))].join(', ')})`);
    if (!key) {
      warnings.push(`enrichment ${doc.name} skipped: keyField ${doc.keyField} is not a text FOCUS column`);
      return;
    }
    if (!rows.length || !targets.length) {
      warnings.push(`enrichment ${doc.name} skipped: no key column, entries or target columns`);
      return;
    }
    const e = `e${index}`;
    joins.push(
      `LEFT JOIN (VALUES ${rows.join(', ')}) AS ${e} (k, ${targets.map((_, j) => `t${j}`).join(', ')}) ON ${e}.k = b.${athenaDialect.col(key)}`,
    );
    targets.forEach((_, j) => {
      inner.push(`${e}.t${j} AS "__e${index}_${j}"`);
    });
    if (passing) {
      const p = `p${index}`;
      if (passing.tuples.length) {
        const tuples = passing.tuples.map((tuple) => `(${[...tuple.map(text), 'TRUE'].join(', ')})`);
        joins.push(
          `LEFT JOIN (VALUES ${tuples.join(', ')}) AS ${p} (${passing.fields.map((_, i) => `c${i}`).join(', ')}, ok) ON ${passing.fields
            .map((f, i) => `${p}.c${i} IS NOT DISTINCT FROM ${conditionInput(f)}`)
            .join(' AND ')}`,
        );
        inner.push(`coalesce(${p}.ok, FALSE) AS "__c${index}"`);
      } else {
        inner.push(`FALSE AS "__c${index}"`);
      }
      conditional.add(index);
    }
    applied.push({ doc, index });
  });
  const valueSql = (index: number, column: string) => {
    const j = features.enrichments[index]?.doc.targetColumns.findIndex((c) => c.name === column) ?? -1;
    if (j < 0) return 'CAST(NULL AS VARCHAR)';
    return conditional.has(index)
      ? `CASE WHEN "__c${index}" THEN "__e${index}_${j}" END`
      : `"__e${index}_${j}"`;
  };
  const chains = enrichmentChains(labelExprs, applied, valueSql, warnings);
  const outputs = computedOutputs(labelExprs, chains, quoteIdent);

  const vctx = {
    ...ctx,
    catalog: { dimensions: outputs.dimensions },
    allowKinds: ['label', 'enrichment'] as const,
  };
  const vdims = vdimColumns(features.vdims, vctx, quoteIdent, warnings);
  const layer0 = `SELECT b.*${inner.length ? `, ${inner.join(', ')}` : ''} FROM ${tableRef(t)} b ${joins.join(' ')} WHERE ${partitions('b.')}`;
  const layer1 = `SELECT *${outputs.columns.length ? `, ${outputs.columns.join(', ')}` : ''} FROM (${layer0})`;
  const layer2 = `SELECT *${vdims.columns.length ? `, ${vdims.columns.join(', ')}` : ''} FROM (${layer1})`;
  return { sql: `(${layer2})`, dimensions: [...outputs.dimensions, ...vdims.dimensions], warnings };
}

export function billingMonthsSql(t: AthenaTable, orgId: string): string {
  return `SELECT DISTINCT "billing_month" AS m FROM ${tableRef(t)} WHERE "org_id" = ${orgLiteral(orgId)} ORDER BY 1 DESC`;
}

export function usageMetricsSql(t: AthenaTable, orgId: string): string {
  return [
    'SELECT "consumedunit" AS consumed_unit, "servicename" AS service_name',
    `FROM ${tableRef(t)}`,
    `WHERE "org_id" = ${orgLiteral(orgId)} AND "consumedunit" IS NOT NULL`,
    'GROUP BY 1, 2 ORDER BY 1, 2',
  ].join('\n');
}

/** The statements behind the candidates: month totals, per key, per key and month, per key and provider, top values. */
export function candidateSql(
  t: AthenaTable,
  orgId: string,
  months: string[],
  topValues: number,
  conversion?: CurrencyConversion,
) {
  const where = `"org_id" = ${orgLiteral(orgId)} AND "billing_month" IN (${monthsLiteral(months)})`;
  const cost = convertedAmountSql('"billedcost"', conversion, athenaDialect);
  const kv = `(SELECT "billing_month" AS month, "providername" AS provider, ${cost} AS cost, u.k, u.v FROM ${tableRef(t)} CROSS JOIN UNNEST("tags") AS u (k, v) WHERE ${where})`;
  const top = Math.max(1, Math.floor(topValues));
  return {
    months: `SELECT "billing_month" AS month, coalesce(sum(${cost}), 0) AS cost FROM ${tableRef(t)} WHERE ${where} GROUP BY 1 ORDER BY 1`,
    keys: `SELECT k AS key, coalesce(sum(cost), 0) AS cost, count(DISTINCT v) AS n FROM ${kv} GROUP BY 1 ORDER BY 1`,
    keyMonths: `SELECT k AS key, month, coalesce(sum(cost), 0) AS cost FROM ${kv} GROUP BY 1, 2 ORDER BY 1, 2`,
    keyProviders: `SELECT DISTINCT k AS key, provider FROM ${kv} WHERE provider IS NOT NULL ORDER BY 1, 2`,
    keyValues: `SELECT key, value, cost FROM (SELECT k AS key, v AS value, coalesce(sum(cost), 0) AS cost, row_number() OVER (PARTITION BY k ORDER BY coalesce(sum(cost), 0) DESC, v) AS rn FROM ${kv} GROUP BY 1, 2) WHERE rn <= ${top} ORDER BY 1, 3 DESC, 2`,
  };
}

/** Top values of several dimensions at once over a source (UNNEST of parallel arrays). */
export function dimensionValuesSql(
  source: string,
  months: string[],
  fields: { name: string; expr: string }[],
  topValues: number,
  conversion?: CurrencyConversion,
): { total: string; values: string } {
  const cost = convertedAmountSql('"billedcost"', conversion, athenaDialect);
  const inMonths = `"billing_month" IN (${monthsLiteral(months)})`;
  const top = Math.max(1, Math.floor(topValues));
  const names = fields.map((_, i) => quoteLiteral(`f${i}`)).join(', ');
  const exprs = fields.map((f) => `CAST(${f.expr} AS VARCHAR)`).join(', ');
  return {
    total: `SELECT coalesce(sum(${cost}), 0) AS total FROM ${source} WHERE ${inMonths}`,
    values: [
      'SELECT field, value, cost FROM (',
      '  SELECT field, value, coalesce(sum(cost), 0) AS cost,',
      '         row_number() OVER (PARTITION BY field ORDER BY coalesce(sum(cost), 0) DESC, value) AS rn',
      `  FROM (SELECT ${cost} AS cost, ARRAY[${names}] AS fs, ARRAY[${exprs}] AS vs FROM ${source} WHERE ${inMonths})`,
      '  CROSS JOIN UNNEST(fs, vs) AS u (field, value)',
      '  WHERE value IS NOT NULL',
      '  GROUP BY 1, 2',
      `) WHERE rn <= ${top} ORDER BY 1, 3 DESC, 2`,
    ].join('\n'),
  };
}

/**
 * A Parquet object of one billing month (`name`: a source's, see ../ingest/sources.ts, or the
 * legacy `data.parquet`), in the Glue table's column order and lower-case names.
 */
export function curatedKey(orgId: string, month: string, name: string): string {
  if (
    !/^[A-Za-z0-9_.:-]{1,128}$/.test(orgId) ||
    !/^\d{4}-\d{2}$/.test(month) ||
    !/^[a-z0-9-]{1,80}\.parquet$/.test(name)
  )
    throw new Error('invalid partition');
  return `curated/org_id=${orgId}/billing_month=${month}/${name}`;
}

/**
 * Where an organisation's Contract Commitment rows are kept: one Parquet object per contract
 * (`contract-<hash of ContractId>.parquet`), replaced whole when an upload restates the contract.
 * Under `curated/` but outside the billing table's projected partitions, so only the contract
 * commitments table (infra, `focus_contract_commitments`) reads it.
 */
export const CONTRACT_COMMITMENTS_PREFIX = 'curated/contract-commitments/';

/** The folder of an organisation's Contract Commitment objects (its partition of the table). */
export function contractCommitmentPrefix(orgId: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(orgId)) throw new Error('invalid partition');
  return `${CONTRACT_COMMITMENTS_PREFIX}org_id=${orgId}/`;
}

export function contractCommitmentKey(orgId: string, contractId: string | null): string {
  const hash = createHash('sha256')
    .update(contractId ?? '')
    .digest('hex');
  return `${contractCommitmentPrefix(orgId)}contract-${hash.slice(0, 32)}.parquet`;
}

/** The one object per month that ingestion wrote before objects were per billing source. */
export const LEGACY_CURATED_OBJECT = 'data.parquet';
