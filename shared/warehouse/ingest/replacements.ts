import type { BillingSource, SourceChange, SourceVersion } from '../../model/uploads';
import { quoteLiteral } from '../sql/quote';
import { inSourcesSql } from './sources';

/**
 * What an upload replaced: for each billing month and source (provider, billing account) that
 * held rows before the upload, the rows and BilledCost per billing currency before and after.
 * Money in two currencies is never added: costs stay per currency. The version before of each
 * source month that dropped markedly (`isMarkedDrop`) is kept (DuckDB: the `billing_replaced`
 * table; Athena: `replaced/<uploadId>/…` objects) for `RESTORABLE_DAYS`, so it can be restored
 * (docs/warehouse.md#replaced-versions-what-an-upload-replaced-and-restoring-it). Versions that
 * did not drop are not kept: a CUR re-delivered several times a day would otherwise keep each
 * month dozens of times over, and copying them doubled the time of a re-ingestion.
 */
/** How long a replaced version stays restorable. */
export const RESTORABLE_DAYS = 30;

/** Where Athena keeps replaced objects in the billing bucket (outside `curated/`; expired by a lifecycle rule). */
export const REPLACED_PREFIX = 'replaced/';

/** A drop of at least this share of a source month's rows, or of its cost in one currency, is marked. */
export const MARKED_DROP = 0.1;

/** The columns a statistics query over one version answers, per month, source and currency. */
export interface StatRow {
  month: unknown;
  provider: unknown;
  account: unknown;
  currency: unknown;
  rows: unknown;
  cost: unknown;
}

/**
 * SQL: rows and BilledCost per billing month, source and currency of table expression `from`
 * (alias `alias`), where `where`; the month is `monthExpr`. Column names match any case (DuckDB).
 */
export function versionStatsSql(from: string, alias: string, where: string, monthExpr: string): string {
  return `SELECT ${monthExpr} AS month, coalesce(${alias}."ProviderName", '') AS provider,
      coalesce(${alias}."BillingAccountId", '') AS account, coalesce(${alias}."BillingCurrency", '') AS currency,
      count(*)::BIGINT AS rows, coalesce(sum(${alias}."BilledCost"), 0)::DOUBLE AS cost
    FROM ${from} AS ${alias} WHERE ${where} GROUP BY ALL`;
}

const sourceId = (r: { month: unknown; provider: unknown; account: unknown }) =>
  `${r.month}\u0000${r.provider}\u0000${r.account}`;

function versions(rows: StatRow[]): Map<string, SourceVersion & BillingSource & { month: string }> {
  const out = new Map<string, SourceVersion & BillingSource & { month: string }>();
  for (const r of rows) {
    const id = sourceId(r);
    const v = out.get(id) ?? {
      month: String(r.month),
      provider: String(r.provider),
      account: String(r.account),
      rows: 0,
      cost: {},
    };
    v.rows += Number(r.rows);
    const currency = String(r.currency);
    v.cost[currency] = (v.cost[currency] ?? 0) + Number(r.cost);
    out.set(id, v);
  }
  return out;
}

/**
 * The source months of `before` (those an upload replaced), or of `after` with `of: 'after'`
 * (those a restore put back), each with both versions (an absent one is 0 rows, no cost).
 */
export function changesOf(
  before: StatRow[],
  after: StatRow[],
  of: 'before' | 'after' = 'before',
): SourceChange[] {
  const b = versions(before);
  const a = versions(after);
  const version = (m: typeof b, id: string): SourceVersion => {
    const v = m.get(id);
    return v ? { rows: v.rows, cost: v.cost } : { rows: 0, cost: {} };
  };
  return [...(of === 'before' ? b : a).entries()]
    .map(([id, v]) => ({
      month: v.month,
      provider: v.provider,
      account: v.account,
      before: version(b, id),
      after: version(a, id),
    }))
    .sort(
      (x, y) =>
        x.month.localeCompare(y.month) ||
        x.provider.localeCompare(y.provider) ||
        x.account.localeCompare(y.account),
    );
}

/** The source month lost at least `threshold` of its rows, or of its cost in a currency it had. */
export function isMarkedDrop(c: Pick<SourceChange, 'before' | 'after'>, threshold = MARKED_DROP): boolean {
  if (c.after.rows < c.before.rows * (1 - threshold)) return true;
  return Object.entries(c.before.cost).some(
    ([k, b]) => b > 0 && (c.after.cost[k] ?? 0) < b * (1 - threshold),
  );
}

/**
 * The changes with the marked drops flagged `kept` (their version before is kept, restorable),
 * and those source months as a SQL predicate over table alias `alias` (FALSE when none).
 */
export function keptChanges(
  changes: SourceChange[],
  alias: string,
  monthColumn = 'billing_month',
): { changes: SourceChange[]; keptSql: string } {
  const out = changes.map((c) => (isMarkedDrop(c) ? { ...c, kept: true as const } : c));
  const kept = out.filter((c) => c.kept);
  const keptSql = kept.length
    ? `(${kept
        .map(
          (c) =>
            `(${alias}.${monthColumn} = ${quoteLiteral(c.month)} AND ${inSourcesSql(alias, [{ provider: c.provider, account: c.account }])})`,
        )
        .join(' OR ')})`
    : 'FALSE';
  return { changes: out, keptSql };
}

const money = (n: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const pct = (after: number, before: number) => {
  const p = Math.round(((after - before) / before) * 100);
  return `${p > 0 ? '+' : ''}${p} %`;
};

/**
 * One sentence per replaced source month that lost at least `MARKED_DROP` of its rows or of its
 * cost in a currency (a positive cost before), e.g. `AWS account 123412340534, 2023-11: 1.02 USD
 * (was 0.66 USD, +55 %) in 381 rows (was 900, -58 %)`. Empty when nothing dropped.
 */
export function markedDrops(changes: SourceChange[], threshold = MARKED_DROP): string[] {
  const out: string[] = [];
  for (const c of changes) {
    if (!isMarkedDrop(c, threshold)) continue;
    const currencies = [...new Set([...Object.keys(c.before.cost), ...Object.keys(c.after.cost)])].sort();
    const costs = currencies
      .map((k) => {
        const b = c.before.cost[k] ?? 0;
        const a = c.after.cost[k] ?? 0;
        const unit = k ? ` ${k}` : '';
        return `${money(a)}${unit} (was ${money(b)}${unit}${b > 0 ? `, ${pct(a, b)}` : ''})`;
      })
      .join(' and ');
    const who = `${c.provider || 'no provider'}${c.account ? ` account ${c.account}` : ''}`;
    out.push(
      `${who}, ${c.month}: ${costs} in ${c.after.rows.toLocaleString('en-US')} rows (was ${c.before.rows.toLocaleString('en-US')}, ${pct(c.after.rows, c.before.rows)})`,
    );
  }
  return out;
}
