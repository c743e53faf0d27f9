import * as v from 'valibot';
import {
  buildOpenApi,
  type OpenApiDocument,
  type OperationObject,
  openApiPath,
  schemaOf,
  statusesOf,
} from '../../../infra/openapi';
import { route } from '../../../shared/http/route';
import { ReportPage, type ReportRecord } from '../../../shared/model/report-schemas';
import type { Report } from '../../../shared/model/reports';
import { routes } from '../../../shared/routes';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Compile-time: the documented report record is exactly the model the API answers with.
const recordMatchesModel: Same<v.InferOutput<typeof ReportRecord>, Report> = true;

const doc = buildOpenApi(routes);

function operationsOf(d: OpenApiDocument): [string, string, OperationObject][] {
  return Object.entries(d.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [path, method, op] as [string, string, OperationObject]),
  );
}

function resolveRef(d: OpenApiDocument, ref: string): unknown {
  const parts = ref.replace(/^#\//, '').split('/');
  let node: unknown = d;
  for (const part of parts) {
    node = (node as Record<string, unknown> | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refsIn(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, val] of Object.entries(node)) {
      if (k === '$ref' && typeof val === 'string') out.push(val);
      else refsIn(val, out);
    }
  }
  return out;
}

function jsonSchemaOf(schema: unknown): Record<string, unknown> {
  const ref = (schema as { $ref?: string }).$ref;
  return (ref ? resolveRef(doc, ref) : schema) as Record<string, unknown>;
}

describe('OpenAPI document of the route manifest', () => {
  it('has the shape of an OpenAPI 3.1 document', () => {
    expect(recordMatchesModel).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(doc.info.title.length).toBeGreaterThan(0);
    expect(doc.info.version).toBe('1.0');
    expect(typeof doc.paths).toBe('object');
    for (const path of Object.keys(doc.paths)) expect(path.startsWith('/')).toBe(true);
    expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(0);
    for (const name of Object.keys(doc.components.schemas)) expect(name).toMatch(/^[A-Za-z0-9._-]+$/);
    // Round-trips through JSON, as `npm run openapi` writes it.
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('declares bearerAuth and apiKeyAuth, both as Authorization: Bearer, and requires one of them', () => {
    const { bearerAuth, apiKeyAuth } = doc.components.securitySchemes;
    expect(bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(apiKeyAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
  });

  it('has exactly one operation per manifest route, with its method, id and tag', () => {
    const ops = operationsOf(doc);
    expect(ops).toHaveLength(routes.length);
    expect(new Set(ops.map(([, , op]) => op.operationId)).size).toBe(routes.length);
    for (const r of routes) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase() as 'get'];
      expect({ route: `${r.method} ${r.path}`, operationId: op?.operationId, tags: op?.tags }).toEqual({
        route: `${r.method} ${r.path}`,
        operationId: r.id,
        tags: [r.tag],
      });
    }
  });

  it('gives every route with a body a JSON request body schema describing an object', () => {
    const withBody = routes.filter((r) => r.body);
    expect(withBody.length).toBeGreaterThan(0);
    for (const r of withBody) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase() as 'post'];
      const schema = op?.requestBody?.content['application/json']?.schema;
      expect({ route: r.id, required: op?.requestBody?.required }).toEqual({ route: r.id, required: true });
      const resolved = jsonSchemaOf(schema);
      expect({ route: r.id, hasShape: Boolean(resolved.type || resolved.anyOf || resolved.oneOf) }).toEqual({
        route: r.id,
        hasShape: true,
      });
    }
    for (const r of routes.filter((x) => !x.body)) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase() as 'get'];
      expect(op?.requestBody).toBeUndefined();
    }
  });

  it('declares every path template parameter as a required path parameter', () => {
    for (const [path, , op] of operationsOf(doc)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort()).toEqual([...names].sort());
      for (const p of declared) expect(p.required).toBe(true);
    }
  });

  it('answers each route with its success status and the error shape of its validation style', () => {
    const shapeOf = {
      plain: 'Error',
      detailed: 'ValidationError',
      sync: 'SyncError',
      publish: 'PublishRejected',
    };
    for (const r of routes) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase() as 'get'] as OperationObject;
      expect(op.responses[String(r.successStatus ?? 200)]).toBeDefined();
      if (!statusesOf(r).includes(400)) {
        // No body, query or path to reject: the route declares no 400 at all.
        expect({ route: r.id, declares400: '400' in op.responses }).toEqual({
          route: r.id,
          declares400: false,
        });
        expect(refsIn(op.responses['401'])).toContain('#/components/schemas/Error');
        continue;
      }
      const bad = op.responses['400']?.content?.['application/json']?.schema;
      const refs = refsIn(bad);
      const expected = r.body ? shapeOf[r.validation ?? 'plain'] : 'Error';
      expect({ route: r.id, refs }).toEqual({
        route: r.id,
        // Every 400 of a publish route has its shape (missing and malformed bodies included).
        refs:
          r.validation === 'publish'
            ? [`#/components/schemas/${expected}`]
            : expect.arrayContaining([`#/components/schemas/${expected}`]),
      });
      expect(refsIn(op.responses['401'])).toContain('#/components/schemas/Error');
      for (const [status, res] of Object.entries(op.responses)) {
        expect({ status, description: typeof res.description }).toEqual({ status, description: 'string' });
      }
    }
  });

  it('spells the four error bodies of the spec', () => {
    const s = doc.components.schemas as Record<string, { required?: string[] }>;
    expect(s.Error?.required).toEqual(['error']);
    expect(s.ValidationError?.required).toEqual(['error', 'details', 'reason']);
    expect(s.SyncError?.required).toEqual(['error', 'reason', 'details', 'summary']);
    expect(s.PublishRejected?.required).toEqual(['ok', 'errors']);
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect({ ref, found: resolveRef(doc, ref) !== undefined }).toEqual({ ref, found: true });
    }
  });
});

describe('schema conversion', () => {
  it('describes a query by what the client sends, before transforms', () => {
    const json = schemaOf(
      v.object({ limit: v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number)) }),
      'input',
    );
    expect(json.properties?.limit).toEqual({ type: 'string', pattern: '^\\d+$' });
  });

  it('keeps check rules as descriptions', () => {
    const json = schemaOf(
      v.pipe(
        v.object({ n: v.number() }),
        v.check((x) => x.n > 1, 'n must exceed 1'),
      ),
      'input',
    );
    expect(json.description).toContain('n must exceed 1');
  });

  it('describes answers by their output, with defaults applied', () => {
    const json = schemaOf(ReportPage, 'output');
    expect(json.required).toEqual(expect.arrayContaining(['items', 'nextCursor']));
  });

  it('turns greedy API Gateway parameters into OpenAPI ones', () => {
    expect(openApiPath('/files/{key+}')).toBe('/files/{key}');
    const d = buildOpenApi([
      route({
        id: 'getFile',
        method: 'GET',
        path: '/files/{key+}',
        entry: 'x/y',
        auth: 'admin',
        tag: 'T',
        summary: 's',
      }),
    ]);
    const op = d.paths['/files/{key}']?.get;
    expect(op?.parameters).toEqual([{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(op?.responses['403']).toBeDefined();
  });

  it('moves recursive definitions into components so their references resolve', () => {
    type Node = { name: string; children: Node[] };
    const NodeSchema: v.GenericSchema<Node> = v.object({
      name: v.string(),
      children: v.array(v.lazy(() => NodeSchema)),
    });
    const d = buildOpenApi([
      route({
        id: 'tree',
        method: 'POST',
        path: '/tree',
        entry: 'x/y',
        auth: 'member',
        tag: 'T',
        summary: 's',
        body: NodeSchema,
      }),
    ]);
    const refs = refsIn(d);
    expect(refs.some((r) => r.startsWith('#/components/schemas/TreeRequest_'))).toBe(true);
    expect(refs.some((r) => r.startsWith('#/$defs'))).toBe(false);
    for (const ref of refs) expect(resolveRef(d, ref)).toBeDefined();
  });

  it('documents the body once per accepted media type, all with the same schema', () => {
    const d = buildOpenApi([
      route({
        id: 'upload',
        method: 'PUT',
        path: '/upload',
        entry: 'x/y',
        auth: 'member',
        tag: 'T',
        summary: 's',
        body: v.object({ n: v.number() }),
        bodyContentTypes: ['application/json', 'application/yaml'],
        deferBodyValidation: true,
      }),
    ]);
    expect(d.paths['/upload']?.put?.requestBody).toEqual({
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/UploadRequest' } },
        'application/yaml': { schema: { $ref: '#/components/schemas/UploadRequest' } },
      },
    });
    expect(d.components.schemas.UploadRequest).toMatchObject({ type: 'object', required: ['n'] });
  });

  it('documents the enrichment PUT body as JSON and YAML', () => {
    const op = doc.paths['/enrichments/{name}']?.put;
    expect(Object.keys(op?.requestBody?.content ?? {})).toEqual([
      'application/json',
      'application/yaml',
      'application/x-yaml',
      'text/yaml',
      'text/x-yaml',
    ]);
    const schema = jsonSchemaOf(op?.requestBody?.content['application/yaml']?.schema);
    expect(schema.required).toEqual(
      expect.arrayContaining(['name', 'keyField', 'priority', 'targetColumns', 'entries']),
    );
  });

  it('refuses a route declared twice', () => {
    const r = route({
      id: 'a',
      method: 'GET',
      path: '/a',
      entry: 'x/y',
      auth: 'member',
      tag: 'T',
      summary: 's',
    });
    expect(() => buildOpenApi([r, { ...r, id: 'b' }])).toThrow(/declared twice/);
  });
});
