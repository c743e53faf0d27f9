import { Environment } from '@marcbachmann/cel-js';
import { FOCUS_COLUMNS, type FocusColumn, type FocusDataType } from './columns';

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

/** How each FOCUS data type is declared to CEL. Null values are read as the type's zero value. */
const CEL_TYPES: Record<FocusDataType, string> = {
  string: 'string',
  decimal: 'double',
  datetime: 'google.protobuf.Timestamp',
  json: 'map',
};

let environment: Environment | undefined;

function env(): Environment {
  if (!environment) {
    const schema: Record<string, string> = {};
    for (const [column, type] of Object.entries(FOCUS_COLUMNS)) schema[column] = CEL_TYPES[type];
    schema.Tags = 'map<string, string>';
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
      if (!Object.hasOwn(FOCUS_COLUMNS, field)) throw new ConditionsError(`unknown field input.${field}`);
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
  /** The `input.<field>` columns the expression reads. */
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

/** The values of a billing row, by FOCUS column name, as the warehouse returns them. */
export type BillingRow = Partial<Record<string, unknown>>;

function celValue(type: FocusDataType, column: string, value: unknown): unknown {
  switch (type) {
    case 'string':
      return value === null || value === undefined ? '' : String(value);
    case 'decimal': {
      const n = typeof value === 'number' ? value : Number(value ?? 0);
      return Number.isFinite(n) ? n : 0;
    }
    case 'datetime': {
      if (value instanceof Date) return value;
      const d = new Date(value === null || value === undefined ? 0 : String(value).replace(' ', 'T'));
      return Number.isNaN(d.getTime()) ? new Date(0) : d;
    }
    case 'json': {
      let obj: unknown = value;
      if (typeof value === 'string') {
        try {
          obj = JSON.parse(value);
        } catch {
          obj = {};
        }
      }
      if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return {};
      if (column !== 'Tags') return obj;
      const tags: Record<string, string> = {};
      for (const [k, v] of Object.entries(obj)) tags[k] = v === null ? '' : String(v);
      return tags;
    }
  }
}

/**
 * Compiles `conditions` once into a predicate over billing rows, for the full refresh. Null
 * columns read as their type's zero value (`""`, `0.0`, the epoch, `{}`); a row on which the
 * expression raises an error (e.g. a missing tag key) does not match. Evaluate it once per
 * distinct combination of `fields`, not per row.
 */
export function compileConditions(expression: string): {
  fields: FocusColumn[];
  matches: (row: BillingRow) => boolean;
} {
  const { fields } = checkConditions(expression);
  const program = env().parse(expression);
  return {
    fields,
    matches: (row) => {
      const input: Record<string, unknown> = {};
      for (const f of fields) input[f] = celValue(FOCUS_COLUMNS[f], f, row[f]);
      try {
        return program({ input }) === true;
      } catch {
        return false;
      }
    },
  };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}
