import { Environment } from '@marcbachmann/cel-js';
import { FOCUS_COLUMN_TYPES, type FocusColumn, type StoredType } from './focus-columns';

/**
 * Enrichment `conditions`: CEL over `input.<FOCUS column>`, the one CEL setup of the service.
 * - When a document is stored, the enrichments area calls `checkConditions`: compile and
 *   type-check only, with the refusals below.
 * - At refresh, the warehouse adapters call `compileCondition`, which checks the same way and
 *   evaluates with the same CEL library (no translation to SQL, so the semantics are CEL's own):
 *   the refresh reads the distinct tuples of the columns the expression references, evaluates
 *   each tuple once and joins the tuples that pass back to the rows. A null column reads as its
 *   type's zero value (`""`, `0.0`, the epoch, `{}`); an evaluation error (a missing map key, say)
 *   counts as false.
 */

/** Longest `conditions` text accepted. */
export const MAX_CONDITIONS_LENGTH = 2000;

/** Parse-time limits handed to the CEL parser; they bound both compile and evaluation work. */
export const CEL_LIMITS = {
  maxAstNodes: 300,
  maxDepth: 24,
  maxListElements: 200,
  maxMapEntries: 50,
  maxCallArguments: 8,
} as const;

/** Functions refused even though CEL knows them. `matches` runs a JS RegExp, which can backtrack for ever. */
const FORBIDDEN_FUNCTIONS = new Set(['matches']);
/** Comprehension macros; one may not appear inside another's body (that would be O(n²) per row). */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** How each stored column type is declared to CEL. */
const CEL_TYPES: Record<StoredType, string> = {
  string: 'string',
  number: 'double',
  timestamp: 'google.protobuf.Timestamp',
  json: 'map',
  tags: 'map<string, string>',
};

let environment: Environment | undefined;

function env(): Environment {
  if (!environment) {
    const schema: Record<string, string> = {};
    for (const [column, type] of Object.entries(FOCUS_COLUMN_TYPES)) schema[column] = CEL_TYPES[type];
    environment = new Environment({
      unlistedVariablesAreDyn: false,
      enableOptionalTypes: false,
      limits: CEL_LIMITS,
    }).registerVariable({ name: 'input', schema });
  }
  return environment;
}

export class ConditionsError extends Error {
  override name = 'ConditionsError';
}

interface AstNode {
  op: string;
  args: unknown;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as AstNode).op === 'string';
}

function childrenOf(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const collect = (value: unknown) => {
    if (isNode(value)) out.push(value);
    else if (Array.isArray(value)) for (const v of value) collect(v);
  };
  collect(node.args);
  return out;
}

/**
 * Walks the AST: `input` may only be used as `input.<Field>` or `input["<Field>"]` with a literal
 * field name (the type checker then rejects unknown fields); collects those fields; refuses
 * forbidden functions and nested comprehensions.
 */
function inspect(root: AstNode): Set<FocusColumn> {
  const fields = new Set<FocusColumn>();
  const walk = (node: AstNode, parent: AstNode | undefined, insideComprehension: boolean) => {
    if (node.op === 'id' && node.args === 'input') {
      const args = parent?.args as unknown[] | undefined;
      let field: unknown;
      if (parent?.op === '.' && args?.[0] === node) field = args[1];
      else if (parent?.op === '[]' && args?.[0] === node) {
        const index = args[1];
        if (isNode(index) && index.op === 'value' && typeof index.args === 'string') field = index.args;
      }
      if (typeof field !== 'string') {
        throw new ConditionsError('fields must be referenced as input.<field>');
      }
      if (!Object.hasOwn(FOCUS_COLUMN_TYPES, field))
        throw new ConditionsError(`unknown field input.${field}`);
      fields.add(field as FocusColumn);
      return;
    }
    if (node.op === 'call' || node.op === 'rcall') {
      const [name, ...rest] = node.args as [string, ...unknown[]];
      if (FORBIDDEN_FUNCTIONS.has(name)) throw new ConditionsError(`function ${name}() is not allowed`);
      if (node.op === 'rcall' && COMPREHENSIONS.has(name)) {
        if (insideComprehension) throw new ConditionsError('nested comprehensions are not allowed');
        const [receiver, lambda] = rest;
        if (isNode(receiver)) walk(receiver, node, insideComprehension);
        for (const child of Array.isArray(lambda) ? lambda : []) if (isNode(child)) walk(child, node, true);
        return;
      }
    }
    for (const child of childrenOf(node)) walk(child, node, insideComprehension);
  };
  walk(root, undefined, false);
  return fields;
}

export interface CheckedConditions {
  /** The `input.<field>` columns the expression reads, sorted. */
  fields: FocusColumn[];
}

/**
 * Compiles and type-checks an enrichment's `conditions` without evaluating it. Throws a
 * ConditionsError naming the problem when the text is too long, does not parse (or exceeds the
 * AST size or depth limits), reads anything but `input.<known FOCUS column>`, uses a refused
 * construct, or does not yield a bool.
 */
export function checkConditions(expression: string): CheckedConditions {
  if (expression.trim() === '') throw new ConditionsError('must not be empty (omit it instead)');
  if (expression.length > MAX_CONDITIONS_LENGTH) {
    throw new ConditionsError(`must be at most ${MAX_CONDITIONS_LENGTH} characters`);
  }
  let ast: AstNode;
  try {
    ast = env().parse(expression).ast as unknown as AstNode;
  } catch (error) {
    throw new ConditionsError(`invalid CEL: ${firstLine(error)}`);
  }
  const fields = inspect(ast);
  let checked: ReturnType<Environment['check']>;
  try {
    checked = env().check(expression);
  } catch (error) {
    throw new ConditionsError(`invalid CEL: ${firstLine(error)}`);
  }
  if (!checked.valid) throw new ConditionsError(`invalid CEL: ${firstLine(checked.error)}`);
  if (checked.type !== 'bool') {
    throw new ConditionsError(`must evaluate to a bool, not ${String(checked.type)}`);
  }
  return { fields: [...fields].sort() };
}

/** Warehouse timestamps come as `2024-09-01 00:00:00` (UTC, no zone); ISO text and Dates pass as-is. */
function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (value === null || value === undefined) return new Date(0);
  const text = String(value).replace(' ', 'T');
  const d = new Date(/(?:Z|[+-]\d\d:?\d\d)$/i.test(text) || !text.includes('T') ? text : `${text}Z`);
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

function toMap(type: 'json' | 'tags', value: unknown): Map<string, unknown> {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = {};
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new Map();
  return new Map(
    Object.entries(parsed).map(([k, v]) => [k, type === 'tags' ? (v === null ? '' : String(v)) : v]),
  );
}

/** A warehouse value as the CEL type its column is declared with; null is the type's zero value. */
function celValue(type: StoredType, value: unknown): unknown {
  switch (type) {
    case 'string':
      return value === null || value === undefined ? '' : String(value);
    case 'number': {
      const n = typeof value === 'number' ? value : Number(value ?? 0);
      return Number.isFinite(n) ? n : 0;
    }
    case 'timestamp':
      return toDate(value);
    case 'json':
    case 'tags':
      return toMap(type, value);
  }
}

/** The values of a billing row, by FOCUS column name, as the warehouse returns them. */
export type BillingRow = Partial<Record<string, unknown>>;

export interface CompiledCondition {
  /** The FOCUS columns the expression reads, sorted. */
  fields: FocusColumn[];
  /** `values[i]` is the value of `fields[i]` as the warehouse returns it (text, number, timestamp text, JSON text). */
  test(values: readonly unknown[]): boolean;
  /** `test` over a whole row, by column name. */
  matches(row: BillingRow): boolean;
}

/**
 * Checks `conditions` (as `checkConditions`, same errors) and compiles it once into a predicate.
 * Evaluate it once per distinct combination of `fields`, not per row.
 */
export function compileCondition(expression: string): CompiledCondition {
  const { fields } = checkConditions(expression);
  const evaluate = env().parse(expression);
  const test = (values: readonly unknown[]) => {
    const input: Record<string, unknown> = {};
    fields.forEach((f, i) => {
      input[f] = celValue(FOCUS_COLUMN_TYPES[f], values[i]);
    });
    try {
      return evaluate({ input }) === true;
    } catch {
      return false;
    }
  };
  return { fields, test, matches: (row) => test(fields.map((f) => row[f])) };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}
