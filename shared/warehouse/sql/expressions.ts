import { createHash } from 'node:crypto';
import { BadRequestError } from '../../errors';
import type { WhereClause, WhereRule } from '../../model/where-clause';
import {
  builtinDimensionOf,
  FOCUS_COLUMN_TYPES,
  focusColumnOf,
  METRIC_COLUMNS,
  type MetricId,
} from '../focus-columns';
import { type Catalog, type ComputedKind, isOperator, isWhereGroup, QUERY_BOUNDS } from '../warehouse-query';
import { type Dialect, inlineParams, type Params } from './dialect';
import { safeName } from './quote';

// The parts of a statement built from the query model: a dimension's expression, a where clause,
// a metric's summed column and a checked timestamp. Unknown fields and operators are a 400.

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
  return parts.length ? `(${parts.join(clause.combinator === 'and' ? ' AND ' : ' OR ')})` : 'TRUE';
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
