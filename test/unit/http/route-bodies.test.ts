import { join } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HttpEvent } from '../../../shared/http/event';
import type { RouteDef } from '../../../shared/http/route';
import { routes } from '../../../shared/routes';
import { startTestIdp, type TestIdp } from '../../support/test-idp';

/**
 * Every route of the manifest that takes a body, through its real handler module: a JSON body that
 * is not an object, and the request-level 400s, answer in the route's own error shape; a request
 * without a valid credential (verified by the route itself) is a 401 before anything about its body
 * is looked at. Each of these
 * fails before the principal is loaded, so no table is needed and nothing can change.
 */

type Handler = (event: HttpEvent, context: never) => Promise<APIGatewayProxyStructuredResultV2>;

const ROOT = join(__dirname, '..', '..', '..');
const context = { getRemainingTimeInMillis: () => 10_000 } as never;

let idp: TestIdp;
/** The headers of a request with a valid session JWT (verified by the route, no table read). */
let identity: Record<string, string>;

beforeAll(async () => {
  idp = await startTestIdp();
  idp.use();
  identity = {
    authorization: `Bearer ${await idp.token({ sub: 'user_bodies', org_id: 'org_bodies', org_role: 'admin' })}`,
  };
});
afterAll(() => idp.close());

function event(def: RouteDef, ctx: Record<string, string>, body: string | undefined): HttpEvent {
  const path = def.path.replace(/\{[^}]+\}/g, 'x1');
  const params = Object.fromEntries([...def.path.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1], 'x1']));
  return {
    version: '2.0',
    routeKey: `${def.method} ${def.path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...ctx },
    isBase64Encoded: false,
    pathParameters: params,
    ...(body !== undefined ? { body } : {}),
    requestContext: {
      accountId: '0',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: def.method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: 'r',
      routeKey: `${def.method} ${def.path}`,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
  } as unknown as HttpEvent;
}

/** The spec's 400 body of each validation style, for one issue about the body as a whole. */
function expected400(def: RouteDef, message: string, issue: boolean): unknown {
  const path = '(body)';
  switch (def.validation ?? 'plain') {
    case 'publish':
      return { ok: false, errors: [{ kind: 'request', message: issue ? `${path}: ${message}` : message }] };
    case 'detailed':
      return issue
        ? { error: 'VALIDATION_ERROR', reason: `${path}: ${message}`, details: [{ path, message }] }
        : { error: message };
    case 'sync':
      return issue
        ? {
            error: 'VALIDATION_ERROR',
            reason: `${path}: ${message}`,
            details: [{ path, message }],
            summary: { added: 0, removed: 0, invited: 0 },
          }
        : { error: message };
    default:
      return issue ? { error: `Invalid body: ${path}: ${message}` } : { error: message };
  }
}

const withBody = routes.filter((r) => r.body);
/**
 * Routes whose function reads the body itself, after a check the spec orders first (a PATCH of an
 * archived report is a 409 whatever the body): their body 400s need the table, so they are checked
 * over HTTP (test/e2e/reports.test.ts, "archived reports answer 409 … to a missing, malformed …").
 */
const parsedBeforeTheFunction = withBody.filter((r) => !r.deferBodyParsing);

async function call(def: RouteDef, ctx: Record<string, string>, body: string | undefined) {
  const { handler } = (await import(join(ROOT, 'functions/http', def.entry))) as { handler: Handler };
  const res = await handler(event(def, ctx, body), context);
  return { status: res.statusCode, body: JSON.parse(res.body || 'null') as unknown };
}

describe('request bodies on every route that takes one', () => {
  it('covers the routes with a body', () => {
    expect(withBody.length).toBeGreaterThan(15);
    expect(withBody.map((r) => r.id)).toEqual(expect.arrayContaining(['publishDimensions', 'patchReport']));
    expect(withBody.filter((r) => r.deferBodyParsing).map((r) => r.id)).toEqual(['patchReport']);
  });

  it.each(parsedBeforeTheFunction.map((r) => [r.id, r] as const))(
    '%s: a JSON value that is not an object is the route’s 400',
    async (_id, def) => {
      for (const sent of ['[]', '[{"scope":"all"}]', '"all"', '42', 'true', 'null']) {
        expect({ sent, ...(await call(def, identity, sent)) }).toEqual({
          sent,
          status: 400,
          body: expected400(def, 'must be a JSON object', true),
        });
      }
    },
  );

  it.each(parsedBeforeTheFunction.map((r) => [r.id, r] as const))(
    '%s: a missing or malformed body is the route’s 400',
    async (_id, def) => {
      expect(await call(def, identity, undefined)).toEqual({
        status: 400,
        body: expected400(def, 'Request body is required', false),
      });
      expect(await call(def, identity, '{"a":')).toEqual({
        status: 400,
        body: expected400(def, 'Malformed JSON body', false),
      });
    },
  );

  it.each(withBody.map((r) => [r.id, r] as const))(
    '%s: without a verified identity, a 401 whatever the body',
    async (_id, def) => {
      const expired = await idp.token({ sub: 'user_bodies', org_id: 'org_bodies', exp: 1 });
      const refused = [
        { authorization: 'Bearer ak_nope' },
        { authorization: `Bearer ${expired}` },
        { authorization: identity.authorization!.replace(/^Bearer/, 'Basic') },
        {},
      ];
      for (const ctx of refused) {
        for (const body of [undefined, '', '{"a":', '[]', 'x'.repeat(2 * 1024 * 1024)]) {
          expect(await call(def, ctx as Record<string, string>, body)).toEqual({
            status: 401,
            body: { error: 'Unauthorized' },
          });
        }
      }
    },
  );
});
