import type { VdimDefinition } from '../../model/dimensions';
import { isTagSource, LABEL_SOURCE_TYPES } from '../../model/view-features';
import {
  builtinDimensionOf,
  FOCUS_COLUMN_TYPES,
  focusColumnOf,
  isReservedDimensionName,
} from '../../warehouse/focus-columns';
import { duckDialect, inlineParams } from '../../warehouse/sql/dialect';
import { whereSql } from '../../warehouse/sql/expressions';
import type { ComputedDimension } from '../../warehouse/warehouse-query';
import type { LabelConfigInput } from './schemas';

/**
 * Per-draft validation of a publish (pure). Each label and each pending virtual dimension is
 * checked on its own; a failing one is reported in `unpublished` with errors of these kinds:
 * - `name`: empty or not an identifier-like name;
 * - `clash`: the name of a built-in dimension, a FOCUS column, a dimension of the other kind, or
 *   an enrichment's target column;
 * - `duplicate`: two drafts of the publish (or a draft and a live dimension of its kind) share a name;
 * - `unknown_source`: a label source that is not a tag key of the billing data (the candidate
 *   window) or not a built-in dimension / FOCUS text column; `source` for an unknown source type,
 *   a repeated source or none at all;
 * - `empty_target`: a label map (or a virtual-dimension rule or default) that maps to an empty value;
 * - `duplicate_map`: two maps of one label for the same value;
 * - `invalid_rule`: a virtual-dimension rule whose where clause names an unknown dimension or operator.
 */
export interface DraftError {
  kind: string;
  message: string;
}

export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_ .:-]*$/;

export interface RulesContext {
  /** Tag keys present in the billing data (the candidate window). */
  tagKeys: ReadonlySet<string>;
  /** Names of labels that will be live after this publish (published and valid in it). */
  labelNames: ReadonlySet<string>;
  /** Live or pending virtual-dimension names by id. */
  vdimNames: ReadonlyMap<string, string>;
  /** Enrichment target columns. */
  enrichmentColumns: ReadonlySet<string>;
}

function nameErrors(name: string): DraftError[] {
  const trimmed = name.trim();
  if (!trimmed) return [{ kind: 'name', message: 'name must not be empty' }];
  if (trimmed !== name) return [{ kind: 'name', message: `name "${name}" has leading or trailing spaces` }];
  if (!NAME_PATTERN.test(name))
    return [
      {
        kind: 'name',
        message: `name "${name}" must start with a letter or _ and use letters, digits, space, _ . : -`,
      },
    ];
  if (isReservedDimensionName(name))
    return [{ kind: 'clash', message: `"${name}" is a built-in dimension or FOCUS column name` }];
  return [];
}

export function labelErrors(
  label: LabelConfigInput,
  ctx: RulesContext,
  duplicateInRequest: boolean,
): DraftError[] {
  const errors = nameErrors(label.name);
  const lower = label.name.toLowerCase();
  if (duplicateInRequest)
    errors.push({ kind: 'duplicate', message: `label "${label.name}" appears more than once` });
  if ([...ctx.vdimNames.values()].some((n) => n.toLowerCase() === lower))
    errors.push({ kind: 'clash', message: `"${label.name}" is the name of a virtual dimension` });
  if ([...ctx.enrichmentColumns].some((n) => n.toLowerCase() === lower))
    errors.push({ kind: 'clash', message: `"${label.name}" is a column of an enrichment` });
  if (!label.columnsMerged.length)
    errors.push({ kind: 'source', message: 'columnsMerged must name at least one source' });
  const seen = new Set<string>();
  for (const source of label.columnsMerged) {
    const id = `${source.type}:${source.name}`;
    if (seen.has(id))
      errors.push({ kind: 'source', message: `source ${source.type} "${source.name}" is listed twice` });
    seen.add(id);
    if (!(LABEL_SOURCE_TYPES as readonly string[]).includes(source.type)) {
      errors.push({
        kind: 'source',
        message: `source type "${source.type}" is not one of ${LABEL_SOURCE_TYPES.join(', ')}`,
      });
    } else if (isTagSource(source.type)) {
      if (!ctx.tagKeys.has(source.name))
        errors.push({
          kind: 'unknown_source',
          message: `unknown source key "${source.name}": no such tag key in the billing data`,
        });
    } else {
      const focus = builtinDimensionOf(source.name)?.column ?? focusColumnOf(source.name);
      if (!focus || FOCUS_COLUMN_TYPES[focus] !== 'string')
        errors.push({ kind: 'unknown_source', message: `unknown source column "${source.name}"` });
    }
  }
  const values = new Set<string>();
  for (const map of label.maps) {
    if (!map.to.trim())
      errors.push({ kind: 'empty_target', message: `map of "${map.value}" has an empty target` });
    if (values.has(map.value))
      errors.push({ kind: 'duplicate_map', message: `value "${map.value}" is mapped twice` });
    values.add(map.value);
  }
  return errors;
}

/** A virtual-dimension draft error, with the body field it is about (create/update name it). */
export interface VdimDraftError extends DraftError {
  field: string;
}

/**
 * The checks of one virtual-dimension draft. Publish runs them on every pending draft; create and
 * update run them too (`vdims.ts`), so a draft that can never publish is refused when written. A
 * saved draft can still become invalid later (a label or enrichment column takes its name).
 */
export function vdimErrors(
  id: string,
  def: VdimDefinition,
  ctx: Omit<RulesContext, 'tagKeys'>,
  duplicateInRequest: boolean,
): VdimDraftError[] {
  const errors: VdimDraftError[] = nameErrors(def.name).map((e) => ({ ...e, field: 'name' }));
  const lower = def.name.toLowerCase();
  if (
    duplicateInRequest ||
    [...ctx.vdimNames].some(([other, n]) => other !== id && n.toLowerCase() === lower)
  )
    errors.push({
      kind: 'duplicate',
      field: 'name',
      message: `virtual dimension "${def.name}" already exists`,
    });
  if ([...ctx.labelNames].some((n) => n.toLowerCase() === lower))
    errors.push({ kind: 'clash', field: 'name', message: `"${def.name}" is the name of a label` });
  if ([...ctx.enrichmentColumns].some((n) => n.toLowerCase() === lower))
    errors.push({ kind: 'clash', field: 'name', message: `"${def.name}" is a column of an enrichment` });
  if (!def.rules.length && def.defaultValue === null)
    errors.push({
      kind: 'empty_target',
      field: 'rules',
      message: 'a virtual dimension needs at least one rule or a default value',
    });
  if (def.defaultValue !== null && !def.defaultValue.trim())
    errors.push({
      kind: 'empty_target',
      field: 'defaultValue',
      message: 'defaultValue must not be empty (use null for no default)',
    });
  const catalog: ComputedDimension[] = [
    ...[...ctx.labelNames].map((name) => ({ name, kind: 'label' as const, column: 'd_0' })),
    ...[...ctx.enrichmentColumns].map((name) => ({ name, kind: 'enrichment' as const, column: 'd_0' })),
  ];
  def.rules.forEach((rule, i) => {
    if (!rule.value.trim())
      errors.push({
        kind: 'empty_target',
        field: `rules.${i}.value`,
        message: `rule ${i} maps to an empty value`,
      });
    try {
      whereSql(rule.whereClause, {
        dialect: duckDialect,
        params: inlineParams(),
        catalog: { dimensions: catalog },
        allowKinds: ['label', 'enrichment'],
      });
    } catch (error) {
      errors.push({
        kind: 'invalid_rule',
        field: `rules.${i}.whereClause`,
        message: `rule ${i}: ${(error as Error).message}`,
      });
    }
  });
  return errors;
}
