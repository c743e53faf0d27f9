import type { EnrichmentFeature, LabelFeature, VdimFeature } from '../../model/view-features';
import { isTagSource } from '../../model/view-features';
import { builtinDimensionOf } from '../focus-columns';
import type { ComputedDimension } from '../warehouse-query';
import { type CompileContext, computedColumn, fieldExpr, whereSql } from './expressions';

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

/**
 * Every label's inner column (`m_i`, its merged value) and outer expression (its maps applied to
 * `m_i`), in the order of `labels`; a label that fails to compile is skipped with a warning.
 */
export function labelColumns(
  labels: readonly LabelFeature[],
  ctx: CompileContext,
  warnings: string[],
): { inner: string[]; outer: Map<string, string> } {
  const inner: string[] = [];
  const outer = new Map<string, string>();
  labels.forEach((label, i) => {
    try {
      inner.push(`${labelMergedSql(label, ctx)} AS m_${i}`);
      outer.set(label.name, labelMapSql(label, `m_${i}`, ctx));
    } catch (error) {
      warnings.push(`label ${label.name} skipped: ${(error as Error).message}`);
    }
  });
  return { inner, outer };
}

export function vdimSql(vdim: VdimFeature, ctx: CompileContext): string {
  const whens = vdim.rules.map((r) => {
    const cond = whereSql(r.whereClause, ctx);
    return `WHEN ${cond} THEN ${ctx.params.add(r.value)}`;
  });
  const fallback = vdim.defaultValue === null ? 'CAST(NULL AS VARCHAR)' : ctx.params.add(vdim.defaultValue);
  return whens.length ? `CASE ${whens.join(' ')} ELSE ${fallback} END` : fallback;
}

/**
 * Enrichment values combined per target column, in application order (priority ascending, then
 * name): every target column starts empty; `merge` keeps a value an earlier enrichment set and
 * fills only the gaps; `overwrite` replaces it where this enrichment has a value.
 * `valueSql(index, column)` is the SQL of one document's value for a column on a row.
 *
 * A target column named like a built-in dimension or a published label (ignoring case) is not
 * applied, with a warning: PUT refuses such names, and a label publish refuses the name of a
 * target column, so this only meets documents stored before those checks. The label keeps its
 * own values.
 */
export function enrichmentChains(
  labelExprs: ReadonlyMap<string, string>,
  applied: readonly { doc: EnrichmentFeature; index: number }[],
  valueSql: (index: number, column: string) => string,
  warnings: string[],
): Map<string, string> {
  const chains = new Map<string, string>();
  const labelNames = new Set([...labelExprs.keys()].map((name) => name.toLowerCase()));
  for (const { doc, index } of applied) {
    for (const col of doc.targetColumns) {
      if (builtinDimensionOf(col.name)) {
        warnings.push(
          `enrichment ${doc.name}: column ${col.name} is a built-in dimension name and is not applied`,
        );
        continue;
      }
      if (labelNames.has(col.name.toLowerCase())) {
        warnings.push(
          `enrichment ${doc.name}: column ${col.name} is the name of a published label and is not applied`,
        );
        continue;
      }
      if (col.mode !== 'merge' && col.mode !== 'overwrite')
        warnings.push(`enrichment ${doc.name}: unknown mode ${col.mode} for ${col.name}, applied as merge`);
      const prev = chains.get(col.name) ?? 'CAST(NULL AS VARCHAR)';
      const value = valueSql(index, col.name);
      chains.set(
        col.name,
        col.mode === 'overwrite' ? `coalesce(${value}, ${prev})` : `coalesce(${prev}, ${value})`,
      );
    }
  }
  return chains;
}

/** The output columns of labels and enrichment columns, and the catalog entries they make. */
export function computedOutputs(
  labelExprs: ReadonlyMap<string, string>,
  chains: ReadonlyMap<string, string>,
  ident: (name: string) => string,
): { columns: string[]; dimensions: ComputedDimension[] } {
  const columns: string[] = [];
  const dimensions: ComputedDimension[] = [];
  for (const [name, expr] of labelExprs) {
    const column = computedColumn('label', name);
    columns.push(`${expr} AS ${ident(column)}`);
    dimensions.push({ name, kind: 'label', column });
  }
  for (const [name, expr] of chains) {
    const column = computedColumn('enrichment', name);
    columns.push(`${expr} AS ${ident(column)}`);
    dimensions.push({ name, kind: 'enrichment', column });
  }
  return { columns, dimensions };
}

/**
 * The virtual-dimension columns of a source, `<CASE …> AS "<column>"`, and their catalog entries.
 * A virtual dimension that does not compile against `ctx` (it reads a dimension that no longer
 * exists, say) is left out with a warning instead of failing the refresh.
 */
export function vdimColumns(
  vdims: readonly VdimFeature[],
  ctx: CompileContext,
  ident: (name: string) => string,
  warnings: string[],
): { columns: string[]; dimensions: ComputedDimension[] } {
  const columns: string[] = [];
  const dimensions: ComputedDimension[] = [];
  for (const vdim of vdims) {
    try {
      const column = computedColumn('vdim', vdim.name);
      columns.push(`${vdimSql(vdim, ctx)} AS ${ident(column)}`);
      dimensions.push({ name: vdim.name, kind: 'vdim', column });
    } catch (error) {
      warnings.push(`virtual dimension ${vdim.name} skipped: ${(error as Error).message}`);
    }
  }
  return { columns, dimensions };
}

/**
 * The dimensions a value listing reads, as `f<i>` fields of the statement (the i-th compiled
 * name), and the names that do not compile (unknown dimensions), which the listing skips.
 */
export function dimensionFields(
  names: readonly string[],
  ctx: CompileContext,
): { fields: { name: string; expr: string }[]; skipped: string[] } {
  const fields: { name: string; expr: string }[] = [];
  const skipped: string[] = [];
  for (const name of names) {
    try {
      fields.push({ name, expr: fieldExpr(name, ctx) });
    } catch {
      skipped.push(name);
    }
  }
  return { fields, skipped };
}

/** Rows `{field: 'f<i>', value, cost}` of a value listing as the port's `(dimension, value, cost)`. */
export function dimensionValueRows(
  rows: readonly Record<string, unknown>[],
  fields: readonly { name: string }[],
): { dimension: string; value: string; cost: number }[] {
  return rows.map((r) => ({
    dimension: fields[Number(String(r.field).slice(1))]?.name ?? String(r.field),
    value: String(r.value),
    cost: Number(r.cost),
  }));
}
