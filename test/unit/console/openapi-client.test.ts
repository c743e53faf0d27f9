import { ENDPOINTS, pathOf } from '../../../console/src/api';
import { openApiHook } from '../../../infra/local/openapi-hook';
import type { OpenApiDocument } from '../../../infra/openapi';

/**
 * The console's API client checked against the API's OpenAPI document, as `GET /openapi.json`
 * serves it: every operation the console calls exists with that method, answers the success status
 * the console expects, takes the query parameters it sends, and declares the error statuses it
 * handles (401 for every call: the credential was refused, back to sign in).
 */
describe("the console's API client against the OpenAPI document", () => {
  let doc: OpenApiDocument;
  beforeAll(async () => {
    const r = await openApiHook.handle!('GET', '/openapi.json', undefined);
    expect(r!.status).toBe(200);
    doc = r!.body as OpenApiDocument;
  });

  const entries = Object.entries(ENDPOINTS) as [
    string,
    { method: string; path: string; ok: number; query?: readonly string[]; handles?: readonly number[] },
  ][];

  it.each(entries)('%s exists with its method, statuses and query parameters', (_, ep) => {
    const op = doc.paths[ep.path]?.[ep.method.toLowerCase() as 'get'];
    expect(op).toBeDefined();
    const statuses = Object.keys(op!.responses).map(Number);
    expect(statuses).toContain(ep.ok);
    for (const s of [401, ...(ep.handles ?? [])]) expect(statuses).toContain(s);
    const params = (op!.parameters ?? []) as { name: string; in: string }[];
    for (const q of ep.query ?? [])
      expect(params.filter((p) => p.in === 'query').map((p) => p.name)).toContain(q);
    // Every {param} of the path is a path parameter of the operation.
    const inPath = [...ep.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    expect(
      params
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort(),
    ).toEqual([...inPath].sort());
  });

  it('covers every API route the console calls, and nothing private', () => {
    // The operations are public routes of the document (no `/_local/…`).
    for (const [, ep] of entries) expect(ep.path.startsWith('/_local')).toBe(false);
    expect(entries.length).toBe(new Set(entries.map(([, ep]) => `${ep.method} ${ep.path}`)).size);
  });

  it('fills path parameters, encoded, and refuses a missing one', () => {
    expect(pathOf('widgetData', { id: 'dash_1', key: 'w 1/x' })).toBe(
      '/dashboard-v2/dash_1/widgets/w%201%2Fx/data',
    );
    expect(() => pathOf('getReport', {})).toThrow('getReport: no value for {id}');
  });
});
