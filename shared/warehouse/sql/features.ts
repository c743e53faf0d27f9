import type { LabelFeature, VdimFeature } from '../features';
import { isTagSource } from '../features';
import { type CompileContext, fieldExpr, whereSql } from './compile';

/**
 * SQL of the computed dimensions, shared by both engines. A label coalesces its sources in order
 * (tag keys, built-in dimensions or FOCUS columns) and then applies its maps; a virtual dimension
 * is a CASE over where clauses (first match wins) with a default. The statements that use these
 * compute the merged value in an inner select and map it in the outer one, so the (possibly
 * long) map is compared against a column, not a re-evaluated expression.
 */
export function labelMergedSql(label: LabelFeature, ctx: CompileContext): string {
  const sources = label.columnsMerged.map((s) =>
    isTagSource(s.type)
      ? fieldExpr(`tag:${s.name}`, ctx)
      : fieldExpr(s.name, { ...ctx, catalog: { dimensions: [] } }),
  );
  if (!sources.length) return 'CAST(NULL AS VARCHAR)';
  return sources.length === 1 ? (sources[0] as string) : `coalesce(${sources.join(', ')})`;
}

/** The label's maps applied to `subject`, a column holding the merged value. */
export function labelMapSql(label: LabelFeature, subject: string, ctx: CompileContext): string {
  if (!label.maps.length) return subject;
  const whens = label.maps.map(
    (m) => `WHEN ${subject} = ${ctx.params.add(m.value)} THEN ${ctx.params.add(m.to)}`,
  );
  return `CASE ${whens.join(' ')} ELSE ${subject} END`;
}

export function vdimSql(vdim: VdimFeature, ctx: CompileContext): string {
  const whens = vdim.rules.map((r) => {
    const cond = whereSql(r.whereClause, ctx);
    return `WHEN ${cond} THEN ${ctx.params.add(r.value)}`;
  });
  const fallback = vdim.defaultValue === null ? 'CAST(NULL AS VARCHAR)' : ctx.params.add(vdim.defaultValue);
  return whens.length ? `CASE ${whens.join(' ')} ELSE ${fallback} END` : fallback;
}
