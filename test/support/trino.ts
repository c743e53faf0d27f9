// Types only: antlr4ng is the runtime dt-sql-parser ships with.
import type { ParserRuleContext, ParseTree } from 'antlr4ng';
import {
  AliasedRelationContext,
  AndContext,
  FunctionCallContext,
  ParameterContext,
  type ProgramContext,
  QuerySpecificationContext,
  SingleStatementContext,
  TableNameContext,
  UnnestContext,
} from 'dt-sql-parser/dist/lib/trino/TrinoSqlParser';
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino';

/**
 * Trino checks for the SQL of the Athena adapter (Athena engine v3 is Trino).
 *
 * - `assertTrino` parses a statement with the Trino grammar of `dt-sql-parser` and fails with the
 *   parser's messages and the statement. A grammar accepts any function name, so it also checks
 *   every called function against TRINO_FUNCTIONS (functions of the Trino documentation): a
 *   DuckDB-only function (`strftime`, `list`, `regexp_matches`, `map_extract_value`…) fails here.
 * - `billingReads` finds every read of the billing table and the top-level conjuncts of the WHERE
 *   clause of the query that reads it, for the partition (and tenant) predicates.
 *
 * What this proves: the statements are Trino syntax, call functions Trino has, and name the
 * organisation (and months) on every read of the billing table. What it does not prove: types
 * (Trino refuses `varchar = double` at analysis, a grammar does not), function signatures and
 * Athena's own limits (query length, partition-projection rules) — see athena-emulator.ts for
 * what running the statements on DuckDB adds.
 */
const parser = new TrinoSQL();

/**
 * Functions and aggregates of Trino (https://trino.io/docs/current/functions/list.html) that a
 * warehouse statement may plausibly call. A statement calling anything else fails `assertTrino`:
 * add a name here only after checking it in the Trino documentation.
 */
export const TRINO_FUNCTIONS = new Set([
  // aggregates and window functions
  'sum',
  'count',
  'count_if',
  'avg',
  'min',
  'max',
  'min_by',
  'max_by',
  'arbitrary',
  'any_value',
  'approx_distinct',
  'approx_percentile',
  'array_agg',
  'map_agg',
  'bool_and',
  'bool_or',
  'every',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'listagg',
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  // conditional and conversion
  'coalesce',
  'nullif',
  'if',
  'try',
  'try_cast',
  'greatest',
  'least',
  'typeof',
  // math
  'abs',
  'ceil',
  'ceiling',
  'floor',
  'round',
  'truncate',
  'sign',
  'power',
  'pow',
  'sqrt',
  'ln',
  'log10',
  'log2',
  'exp',
  'mod',
  'is_nan',
  'is_finite',
  'nan',
  'infinity',
  // strings
  'concat',
  'concat_ws',
  'length',
  'lower',
  'upper',
  'trim',
  'ltrim',
  'rtrim',
  'lpad',
  'rpad',
  'replace',
  'reverse',
  'split',
  'split_part',
  'strpos',
  'position',
  'starts_with',
  'substr',
  'substring',
  'format',
  'regexp_like',
  'regexp_extract',
  'regexp_replace',
  'to_utf8',
  'from_utf8',
  'to_hex',
  'sha256',
  'md5',
  // dates
  'date_trunc',
  'date_add',
  'date_diff',
  'date_format',
  'date_parse',
  'format_datetime',
  'parse_datetime',
  'from_iso8601_timestamp',
  'from_iso8601_date',
  'to_iso8601',
  'from_unixtime',
  'to_unixtime',
  'year',
  'month',
  'day',
  'day_of_week',
  'dow',
  'day_of_month',
  'day_of_year',
  'week',
  'week_of_year',
  'year_of_week',
  'hour',
  'minute',
  'second',
  'quarter',
  'last_day_of_month',
  'at_timezone',
  'with_timezone',
  'current_date',
  'now',
  // arrays, maps, JSON
  'cardinality',
  'element_at',
  'contains',
  'array_join',
  'array_distinct',
  'array_sort',
  'array_position',
  'sequence',
  'filter',
  'transform',
  'zip',
  'flatten',
  'slice',
  'map',
  'map_keys',
  'map_values',
  'map_entries',
  'map_filter',
  'map_concat',
  'json_format',
  'json_parse',
  'json_extract',
  'json_extract_scalar',
  'json_array_get',
  'json_size',
]);

export class TrinoCheckError extends Error {
  override name = 'TrinoCheckError';
}

const fail = (what: string, sql: string): never => {
  throw new TrinoCheckError(`${what}\n--- statement ---\n${sql}`);
};

let last: { sql: string; tree: ProgramContext; errors: string[] } | undefined;

function parseCollecting(sql: string): { tree: ProgramContext; errors: string[] } {
  if (last?.sql === sql) return last;
  const errors: string[] = [];
  const tree = parser.parse(sql, (e) =>
    errors.push(`line ${e.startLine}:${e.startColumn}-${e.endLine}:${e.endColumn} ${e.message}`),
  );
  last = { sql, tree, errors };
  return last;
}

/** The parser's messages for a statement (empty when it parses). */
export function trinoErrors(sql: string): string[] {
  return parseCollecting(sql).errors;
}

/** A token (leaf) of the tree, as opposed to a rule context. */
const isToken = (node: ParseTree) => 'symbol' in node;

function walk(node: ParseTree, visit: (node: ParseTree) => void): void {
  visit(node);
  if (isToken(node)) return;
  for (let i = 0; i < node.getChildCount(); i++) {
    const child = node.getChild(i);
    if (child) walk(child, visit);
  }
}

function all<T extends ParseTree>(tree: ParseTree, kind: abstract new (...args: never[]) => T): T[] {
  const out: T[] = [];
  walk(tree, (n) => {
    if (n instanceof kind) out.push(n);
  });
  return out;
}

/** The statement text a node spans. */
export function source(sql: string, node: ParserRuleContext): string {
  return sql.slice(node.start?.start ?? 0, (node.stop?.stop ?? -1) + 1);
}

/** Parses one statement with the Trino grammar; returns the tree or fails with the parser's messages. */
export function parseTrino(sql: string): ProgramContext {
  const { tree, errors } = parseCollecting(sql);
  if (errors.length) fail(`Not Trino SQL:\n${errors.join('\n')}`, sql);
  const statements = all(tree, SingleStatementContext).length;
  if (statements !== 1) fail(`Expected one statement, found ${statements}`, sql);
  return tree;
}

/** Lower-case names of the functions a statement calls. */
export function functionNames(tree: ProgramContext): string[] {
  return all(tree, FunctionCallContext).map((f) => f.functionName().getText().toLowerCase());
}

/**
 * Asserts that `sql` is one Trino statement that calls only Trino functions; returns its tree.
 * Quoted function names are refused too (Trino resolves `"sum"` but nothing here writes that).
 */
export function assertTrino(sql: string): ProgramContext {
  const tree = parseTrino(sql);
  const unknown = [...new Set(functionNames(tree))].filter((f) => !TRINO_FUNCTIONS.has(f));
  if (unknown.length) fail(`Not Trino functions: ${unknown.join(', ')}`, sql);
  return tree;
}

/** The top-level AND-ed parts of a boolean expression, as statement text. */
function conjuncts(sql: string, node: ParserRuleContext): string[] {
  let inner: ParserRuleContext = node;
  // Parenthesised: predicated → valueExpressionDefault → parenthesizedExpression → expression → booleanExpression.
  for (;;) {
    const text = source(sql, inner);
    if (inner instanceof AndContext)
      return inner.booleanExpression().flatMap((b: ParserRuleContext) => conjuncts(sql, b));
    const only = inner.getChildCount() === 1 ? inner.getChild(0) : undefined;
    if (only && !isToken(only)) {
      inner = only as ParserRuleContext;
      continue;
    }
    if (text.startsWith('(') && text.endsWith(')') && inner.getChildCount() === 3) {
      const middle = inner.getChild(1);
      if (middle && !isToken(middle)) {
        inner = middle as ParserRuleContext;
        continue;
      }
    }
    return [text.trim()];
  }
}

export interface BillingRead {
  /** The text of the query specification that reads the table. */
  query: string;
  /** Top-level conjuncts of its WHERE clause. */
  where: string[];
}

/** Every read of the table `"db"."table"` with the WHERE conjuncts of the query that reads it. */
export function billingReads(sql: string, tableRef: string): BillingRead[] {
  const tree = parseTrino(sql);
  const norm = (s: string) => s.replaceAll(/\s+/g, '').toLowerCase();
  return all(tree, TableNameContext)
    .filter((t) => norm(source(sql, t)) === norm(tableRef))
    .map((t) => {
      let q: ParserRuleContext | null = t.parent;
      while (q && !(q instanceof QuerySpecificationContext)) q = q.parent;
      if (!q) return fail(`Table ${tableRef} read outside a query specification`, sql);
      const where = (q as QuerySpecificationContext).whereClause();
      return {
        query: source(sql, q),
        where: where ? conjuncts(sql, where.booleanExpression()) : [],
      };
    });
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Asserts that every read of the billing table names the organisation as a literal equality on
 * `org_id` (the injected partition projection, and the tenant guarantee) and, when `months` is
 * given, restricts `billing_month` to a literal list holding every one of them and nothing
 * outside `within` (when given). Returns the number of reads.
 */
export function assertPartitioned(
  sql: string,
  opts: { tableRef: string; orgId: string; months?: string[]; within?: string[] },
): number {
  const reads = billingReads(sql, opts.tableRef);
  if (!reads.length) fail(`No read of ${opts.tableRef}`, sql);
  const org = new RegExp(`^(\\w+\\.)?"org_id" = '${escapeRe(opts.orgId.replaceAll("'", "''"))}'$`);
  const month = /^(\w+\.)?"billing_month" IN \(('\d{4}-\d{2}'(, '\d{4}-\d{2}')*)\)$/;
  for (const read of reads) {
    if (!read.where.some((c) => org.test(c)))
      fail(`A read of ${opts.tableRef} without "org_id" = '${opts.orgId}':\n${read.query}`, sql);
    if (!opts.months) continue;
    const list = read.where.map((c) => month.exec(c)).find(Boolean);
    if (!list) fail(`A read of ${opts.tableRef} without a billing_month list:\n${read.query}`, sql);
    const listed = (list?.[2] ?? '').split(', ').map((m) => m.slice(1, -1));
    const missing = opts.months.filter((m) => !listed.includes(m));
    if (missing.length) fail(`billing_month list misses ${missing.join(', ')}`, sql);
    const extra = opts.within ? listed.filter((m) => !opts.within?.includes(m)) : [];
    if (extra.length) fail(`billing_month list reads months outside the request: ${extra.join(', ')}`, sql);
  }
  return reads.length;
}

/** Edits of a statement by offsets (for the DuckDB emulator): replaced spans, applied last-first. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

export function applyEdits(sql: string, edits: Edit[]): string {
  let out = sql;
  for (const e of [...edits].sort((a, b) => b.start - a.start))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

export const span = (n: ParserRuleContext) => ({ start: n.start?.start ?? 0, end: (n.stop?.stop ?? -1) + 1 });

/** The nodes the emulator rewrites: parameters, function names, and UNNEST relations with their alias. */
export function emulatorNodes(tree: ProgramContext) {
  return {
    parameters: all(tree, ParameterContext),
    functions: all(tree, FunctionCallContext),
    unnests: all(tree, UnnestContext).map((unnest) => {
      let alias: ParserRuleContext | null = unnest.parent;
      while (alias && !(alias instanceof AliasedRelationContext)) alias = alias.parent;
      return { unnest, alias: alias as AliasedRelationContext | null };
    }),
  };
}
