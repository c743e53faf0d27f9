import type * as v from 'valibot';

/**
 * Walks a valibot schema (a route's body) for the security suites: every object schema it can
 * reach, through unions, variants, wrappers, arrays, records, pipes and lazy getters, with the
 * JSON path where it sits (`queries[].whereClause`).
 */

// biome-ignore lint/suspicious/noExplicitAny: walking valibot's schema objects
export type SchemaNode = v.GenericSchema<any, any> & {
  entries?: Record<string, SchemaNode>;
  options?: SchemaNode[];
  wrapped?: SchemaNode;
  item?: SchemaNode;
  value?: SchemaNode;
  getter?: (input: unknown) => SchemaNode;
};

export interface ObjectAt {
  /** Where the object sits in the body: `` for the body itself, `queries[]`, `widgets[].source`. */
  path: string;
  schema: SchemaNode;
}

/** Every object schema reachable from `schema`, each once. */
export function objectsIn(schema: SchemaNode, path = '', seen = new Set<SchemaNode>()): ObjectAt[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  if (schema.entries) {
    const out: ObjectAt[] = [{ path, schema }];
    for (const [key, entry] of Object.entries(schema.entries)) {
      out.push(...objectsIn(entry, path ? `${path}.${key}` : key, seen));
    }
    return out;
  }
  if (schema.options) return schema.options.flatMap((o) => objectsIn(o, path, seen));
  if (schema.wrapped) return objectsIn(schema.wrapped, path, seen);
  if (schema.item) return objectsIn(schema.item, `${path}[]`, seen);
  if (schema.type === 'record' && schema.value) return objectsIn(schema.value, `${path}{}`, seen);
  // A lazy getter given no input describes every shape it can take (where-clause.ts).
  if (schema.getter) return objectsIn(schema.getter(undefined), path, seen);
  return [];
}

/** Every field of every reachable object: `path.key`. */
export function fieldsIn(schema: SchemaNode): { path: string; key: string; schema: SchemaNode }[] {
  return objectsIn(schema).flatMap((o) =>
    Object.entries(o.schema.entries ?? {}).map(([key, s]) => ({
      path: o.path ? `${o.path}.${key}` : key,
      key,
      schema: s,
    })),
  );
}

/**
 * Where a body holds a free-form map (`record`: scope `filters`, dashboard `conditions`, enrichment
 * entry values): keys there are the client's by design. Paths as in `objectsIn`.
 */
export function recordsIn(schema: SchemaNode, path = '', seen = new Set<SchemaNode>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  if (schema.type === 'record') return [path];
  if (schema.entries)
    return Object.entries(schema.entries).flatMap(([key, entry]) =>
      recordsIn(entry, path ? `${path}.${key}` : key, seen),
    );
  if (schema.options) return schema.options.flatMap((o) => recordsIn(o, path, seen));
  if (schema.wrapped) return recordsIn(schema.wrapped, path, seen);
  if (schema.item) return recordsIn(schema.item, `${path}[]`, seen);
  if (schema.getter) return recordsIn(schema.getter(undefined), path, seen);
  return [];
}
