import type { DimensionEntry, PublishedLabel, VdimDefinition } from '../../model/dimensions';
import type { EnrichmentFeature } from '../../model/view-features';
import {
  BUILTIN_DIMENSIONS,
  builtinDimensionOf,
  HIGH_CARDINALITY_DIMENSIONS,
} from '../../warehouse/focus-columns';
import type { DimensionValues } from '../../warehouse/port';
import { type Catalog, OPERATORS } from '../../warehouse/warehouse-query';

/**
 * The dimension list of GET /dimensions (pure): the built-in FOCUS dimensions, then published
 * labels, virtual dimensions and enrichment target columns, each with its costliest values
 * (BilledCost over the candidate window; `proportionCostAllocated` is a fraction of the window
 * total) and the where-clause operators. Built from what the refresh actually built (the
 * catalog), so every listed dimension is queryable.
 */
export const DIMENSION_TOP_VALUES = 200;

export const DIMENSION_OPERATORS = OPERATORS.map((o) => ({ name: o.name, value: o.name, label: o.label }));

/** The dimension names whose values the refresh computes, in list order. */
export function dimensionNames(catalog: Catalog | undefined): string[] {
  const builtins = BUILTIN_DIMENSIONS.filter((d) => !HIGH_CARDINALITY_DIMENSIONS.has(d.name)).map(
    (d) => d.name,
  );
  const computed = (catalog?.dimensions ?? []).filter((d) => !builtinDimensionOf(d.name)).map((d) => d.name);
  return [...builtins, ...computed];
}

export function buildDimensionList(input: {
  catalog: Catalog | undefined;
  values: DimensionValues;
  labels: readonly PublishedLabel[];
  vdims: readonly VdimDefinition[];
  enrichments: readonly EnrichmentFeature[];
}): DimensionEntry[] {
  const { total } = input.values;
  const valuesOf = (name: string) =>
    input.values.values
      .filter((v) => v.dimension === name)
      .map((v) => ({
        name: v.value,
        label: v.value,
        proportionCostAllocated: total > 0 ? v.cost / total : 0,
      }));
  const entry = (name: string, label: string, groupTitle: string, description: string): DimensionEntry => ({
    name,
    label,
    groupTitle,
    description,
    valueEditorType: 'multiselect',
    values: valuesOf(name),
    operators: DIMENSION_OPERATORS,
  });
  const list: DimensionEntry[] = BUILTIN_DIMENSIONS.map((d) =>
    entry(d.name, d.label, d.groupTitle, `FOCUS column ${d.column}`),
  );
  const computed = (input.catalog?.dimensions ?? []).filter((d) => !builtinDimensionOf(d.name));
  const order = { label: 0, vdim: 1, enrichment: 2 } as const;
  for (const d of [...computed].sort(
    (a, b) => order[a.kind] - order[b.kind] || a.name.localeCompare(b.name),
  )) {
    if (d.kind === 'label') {
      const label = input.labels.find((l) => l.name === d.name);
      const sources = label?.columnsMerged.map((s) => s.name).join(', ') ?? '';
      list.push(entry(d.name, d.name, 'Labels', sources ? `Label from ${sources}` : 'Label'));
    } else if (d.kind === 'vdim') {
      const vdim = input.vdims.find((v) => v.name === d.name);
      list.push(entry(d.name, d.name, 'Virtual dimensions', vdim?.description || 'Virtual dimension'));
    } else {
      const docs = input.enrichments
        .filter((e) => e.targetColumns.some((c) => c.name === d.name))
        .map((e) => e.name);
      list.push(
        entry(d.name, d.name, 'Enrichments', `Enrichment column from ${docs.join(', ') || 'enrichments'}`),
      );
    }
  }
  return list;
}
