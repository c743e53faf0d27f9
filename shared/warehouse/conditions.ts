import { Environment } from '@marcbachmann/cel-js';
import { FOCUS_COLUMN_TYPES, type FocusColumn, type StoredType } from './focus-columns';

/**
 * Enrichment `conditions` at refresh time. The expression is CEL over `input.<FOCUS column>`,
 * validated by the enrichments area when stored. We evaluate it with the same CEL library (no
 * translation to SQL, so the semantics are CEL's own): the refresh reads the distinct tuples of
 * the columns the expression references (among the rows the enrichment could apply to),
 * evaluates each tuple once, and joins the tuples that pass back to the rows. A null column is
 * read as its type's zero value; an evaluation error (a missing map key, say) counts as false.
 */
const CEL_TYPES: Record<StoredType, string> = {
  string: 'string',
  number: 'double',
  timestamp: 'google.protobuf.Timestamp',
  json: 'map',
  tags: 'map<string, string>',
};

const LIMITS = {
  maxAstNodes: 300,
  maxDepth: 24,
  maxListElements: 200,
  maxMapEntries: 50,
  maxCallArguments: 8,
};

let environment: Environment | undefined;

function env(): Environment {
  if (!environment) {
    const schema: Record<string, string> = {};
    for (const [column, type] of Object.entries(FOCUS_COLUMN_TYPES)) schema[column] = CEL_TYPES[type];
    environment = new Environment({
      unlistedVariablesAreDyn: false,
      enableOptionalTypes: false,
      limits: LIMITS,
    }).registerVariable({ name: 'input', schema });
  }
  return environment;
}

interface AstNode {
  op: string;
  args: unknown;
}

const isNode = (v: unknown): v is AstNode =>
  typeof v === 'object' && v !== null && typeof (v as AstNode).op === 'string';

/** The FOCUS columns an expression reads through `input.X` or `input["X"]`. */
function referencedFields(root: unknown): FocusColumn[] {
  const fields = new Set<FocusColumn>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isNode(node)) return;
    const args = node.args as unknown[];
    if ((node.op === '.' || node.op === '[]') && Array.isArray(args) && isNode(args[0])) {
      const base = args[0];
      if (base.op === 'id' && base.args === 'input') {
        const key =
          node.op === '.' ? args[1] : isNode(args[1]) && args[1].op === 'value' ? args[1].args : undefined;
        if (typeof key !== 'string' || !(key in FOCUS_COLUMN_TYPES))
          throw new Error(`condition reads input.${String(key)}, which is not a FOCUS column`);
        fields.add(key as FocusColumn);
        return;
      }
    }
    walk(node.args);
  };
  walk(root);
  return [...fields].sort();
}

export interface CompiledCondition {
  fields: FocusColumn[];
  /** `values[i]` is the value of `fields[i]` as the warehouse returns it (text, number, timestamp text, JSON text). */
  test(values: unknown[]): boolean;
}

function celValue(type: StoredType, value: unknown): unknown {
  if (type === 'string') return value === null || value === undefined ? '' : String(value);
  if (type === 'number') return value === null || value === undefined ? 0 : Number(value);
  if (type === 'timestamp')
    return value === null || value === undefined
      ? new Date(0)
      : new Date(`${String(value).replace(' ', 'T')}Z`);
  if (value === null || value === undefined || value === '') return new Map();
  const parsed = typeof value === 'string' ? JSON.parse(value) : value;
  return new Map(
    Object.entries((parsed ?? {}) as Record<string, unknown>).map(([k, v]) => [
      k,
      type === 'tags' ? String(v) : v,
    ]),
  );
}

export function compileCondition(expression: string): CompiledCondition {
  const evaluate = env().parse(expression);
  const fields = referencedFields((evaluate as unknown as { ast: unknown }).ast);
  return {
    fields,
    test(values) {
      const input: Record<string, unknown> = {};
      fields.forEach((f, i) => {
        input[f] = celValue(FOCUS_COLUMN_TYPES[f], values[i]);
      });
      try {
        return evaluate({ input }) === true;
      } catch {
        return false;
      }
    },
  };
}
