import { createHash } from 'node:crypto';
import type { BillingSource } from '../../model/uploads';
import { quoteLiteral } from '../sql/quote';

/**
 * A billing source: the (ProviderName, BillingAccountId) pair of a row after conversion to FOCUS.
 * An upload replaces, for each billing month it holds, the rows of the sources it holds for that
 * month, and nothing else (docs/warehouse.md#ingestion). Rows without a billing account are one
 * source per provider; a NULL provider or account counts as the empty string (ingestion already
 * reads empty cells as NULL, so the two cannot differ).
 */
/** The provider and account expressions of the rows of table alias `alias` (NULL as ''). */
function sourceColumns(alias: string): [provider: string, account: string] {
  return [`coalesce(${alias}."ProviderName", '')`, `coalesce(${alias}."BillingAccountId", '')`];
}

/**
 * The source of the rows of table alias `alias`, as two SQL expressions: provider, account
 * (named `provider` and `account` with `named`). Column names match any case (DuckDB).
 */
export function sourceKeySql(alias: string, named = false): string {
  const [p, a] = sourceColumns(alias);
  return named ? `${p} AS provider, ${a} AS account` : `${p}, ${a}`;
}

/** A SQL predicate: the row of alias `alias` belongs to one of `sources` (FALSE when none). */
export function inSourcesSql(alias: string, sources: BillingSource[]): string {
  if (!sources.length) return 'FALSE';
  const [p, a] = sourceColumns(alias);
  return `(${sources.map((s) => `(${p} = ${quoteLiteral(s.provider)} AND ${a} = ${quoteLiteral(s.account)})`).join(' OR ')})`;
}

/**
 * The file name of a source's curated Parquet inside a month's partition folder (Athena):
 * `source-<hash>.parquet`, stable for the pair and safe in a key whatever the account holds.
 */
export function sourceObjectName(source: BillingSource): string {
  const hash = createHash('sha256').update(`${source.provider}\u0000${source.account}`).digest('hex');
  return `source-${hash.slice(0, 32)}.parquet`;
}
