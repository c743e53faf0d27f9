import * as v from 'valibot';
import { BadRequestError, type FieldIssue } from '../../errors';
import { toFieldIssues } from '../../validation';
import {
  builtinDimensionOf,
  EXTRA_COLUMNS,
  FOCUS_COLUMN_TYPES,
  FOCUS_DATA_TYPE_NAMES,
  focusColumnOf,
  isFocusColumn,
} from '../../warehouse/focus-columns';
import type { EnrichmentDocument } from './document';
import { EnrichmentDocumentBody } from './schemas';

/** Target column names that would collide with JavaScript object internals. */
const RESERVED_COLUMN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

function invalid(path: string, message: string): BadRequestError {
  return new BadRequestError(`Invalid body: ${path}: ${message}`);
}

function shapeIssues(issues: readonly v.BaseIssue<unknown>[]): FieldIssue[] {
  return toFieldIssues(issues).map((issue, i) => {
    const raw = issues[i];
    // An extra key in a strict object: say so plainly instead of "Expected never".
    if (raw?.expected === 'never' && raw.kind === 'schema') return { ...issue, message: 'unknown field' };
    return issue;
  });
}

/**
 * Validates a PUT body against the document rules and returns the canonical document (fields in
 * a fixed order, `description` defaulted, `conditions` dropped when null). Throws a 400
 * `{error: "Invalid body: <field path>: <reason>"}` naming the first failing field. No I/O; async
 * only because the CEL compiler is loaded when a document has `conditions`, not before.
 */
export async function validateDocument(input: unknown, urlName: string): Promise<EnrichmentDocument> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid('(body)', 'must be an enrichment document object');
  }
  const parsed = v.safeParse(EnrichmentDocumentBody, input, { abortPipeEarly: true });
  if (!parsed.success) {
    const first = shapeIssues(parsed.issues)[0];
    throw invalid(first?.path ?? '(body)', first?.message ?? 'invalid document');
  }
  const body = parsed.output;

  if (body.name !== urlName) throw invalid('name', `must equal the name in the URL ("${urlName}")`);

  if (!isFocusColumn(body.keyField)) {
    const hint = focusColumnOf(body.keyField);
    throw invalid(
      'keyField',
      `unknown billing column "${body.keyField}"${hint ? ` (did you mean "${hint}"?)` : ''}`,
    );
  }
  // An entry's `key` is compared with the column's value as text: decimals, timestamps and JSON
  // objects make poor lookup keys, so only the string columns may be the key.
  const keyType = FOCUS_COLUMN_TYPES[body.keyField];
  if (keyType !== 'string') {
    throw invalid(
      'keyField',
      `"${body.keyField}" is a ${FOCUS_DATA_TYPE_NAMES[keyType]} column; the key must be a text column`,
    );
  }

  let conditions: string | undefined;
  if (body.conditions !== undefined && body.conditions !== null) {
    const { ConditionsError, checkConditions } = await import('../../warehouse/conditions');
    try {
      checkConditions(body.conditions);
    } catch (error) {
      if (error instanceof ConditionsError) throw invalid('conditions', error.message);
      throw error;
    }
    conditions = body.conditions;
  }

  const declared = new Set<string>();
  const seenLower = new Map<string, number>();
  body.targetColumns.forEach((column, i) => {
    const path = `targetColumns.${i}.name`;
    if (RESERVED_COLUMN_NAMES.has(column.name)) throw invalid(path, `"${column.name}" is a reserved name`);
    const focus = focusColumnOf(column.name);
    if (focus)
      throw invalid(path, `"${column.name}" is the FOCUS billing column ${focus}; choose a new column name`);
    const builtin = builtinDimensionOf(column.name);
    if (builtin)
      throw invalid(
        path,
        `"${column.name}" is the built-in dimension ${builtin.name}; choose a new column name`,
      );
    if (column.name.toLowerCase() in EXTRA_COLUMNS || /^x_/i.test(column.name))
      throw invalid(
        path,
        `"${column.name}" is a warehouse column name (provider x_ columns, org_id, billing_month…); choose a new column name`,
      );
    const lower = column.name.toLowerCase();
    const earlier = seenLower.get(lower);
    if (earlier !== undefined) {
      throw invalid(path, `duplicate target column "${column.name}" (also targetColumns.${earlier})`);
    }
    seenLower.set(lower, i);
    declared.add(column.name);
  });

  const seenKeys = new Map<string, number>();
  body.entries.forEach((entry, i) => {
    const earlier = seenKeys.get(entry.key);
    if (earlier !== undefined)
      throw invalid(`entries.${i}.key`, `duplicate key "${entry.key}" (also entries.${earlier})`);
    seenKeys.set(entry.key, i);
    const columns = Object.keys(entry.then);
    if (columns.length === 0) throw invalid(`entries.${i}.then`, 'must set at least one target column');
    for (const column of columns) {
      if (!declared.has(column)) {
        throw invalid(`entries.${i}.then.${column}`, `"${column}" is not a declared target column`);
      }
    }
  });

  return {
    name: body.name,
    description: body.description,
    keyField: body.keyField,
    priority: body.priority,
    ...(conditions !== undefined ? { conditions } : {}),
    targetColumns: body.targetColumns.map((c) => ({ name: c.name, mode: c.mode })),
    // biome-ignore lint/suspicious/noThenProperty: `then` is the spec's field name; its value is a plain record
    entries: body.entries.map((e) => ({ key: e.key, then: { ...e.then } })),
  };
}

/** Names of the organisation's other computed dimensions, which a target column may not take. */
export interface TakenDimensionNames {
  /** Published labels. */
  labels: readonly string[];
  /** Published (live) virtual dimensions. */
  virtualDimensions: readonly string[];
}

/**
 * Refuses a target column named like a published label or a live virtual dimension (ignoring
 * case, as everywhere in dimension names): the warehouse would otherwise have two dimensions of
 * one name. So every target column is a dimension of its own that starts empty. Throws the same
 * 400 `{error: "Invalid body: targetColumns.<i>.name: …"}` as `validateDocument`. Pure.
 */
export function checkTargetColumnNames(doc: EnrichmentDocument, taken: TakenDimensionNames): void {
  const owners = new Map<string, string>();
  for (const name of taken.virtualDimensions)
    owners.set(name.toLowerCase(), `the virtual dimension "${name}"`);
  for (const name of taken.labels) owners.set(name.toLowerCase(), `the published label "${name}"`);
  doc.targetColumns.forEach((column, i) => {
    const owner = owners.get(column.name.toLowerCase());
    if (owner)
      throw invalid(
        `targetColumns.${i}.name`,
        `"${column.name}" is already ${owner}; choose a new column name`,
      );
  });
}
