import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, tableName } from '../../../shared/db/client';
import { keys } from '../../../shared/db/keys';
import { ensureUser } from '../../../shared/db/users-repo';
import { createApiKey } from '../../../shared/domain/apikeys/mint';
import type { HttpEvent } from '../../../shared/http/event';
import { httpRoute } from '../../../shared/http/handler';
import { route } from '../../../shared/http/route';

/** Builds the payload-v2 event API Gateway hands a route; `auth` holds the credential's header. */
function event(auth: Record<string, string>, over: Partial<HttpEvent> = {}): HttpEvent {
  const { headers, ...rest } = over;
  return {
    version: '2.0',
    routeKey: 'POST /test',
    rawPath: '/test',
    rawQueryString: '',
    headers: { ...(headers ?? { 'content-type': 'application/json' }), ...auth },
    isBase64Encoded: false,
    requestContext: {
      accountId: '0',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'POST', path: '/test', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: 'r',
      routeKey: 'POST /test',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    ...rest,
  } as HttpEvent;
}

const context = { getRemainingTimeInMillis: () => 10_000 } as never;

/** A member's `POST /test` route taking `{ n }`, with `extra` settings. */
const testRoute = (id: string, extra: Partial<Parameters<typeof route>[0]> = {}) =>
  route({
    id,
    method: 'POST',
    path: '/test',
    entry: 'test',
    auth: 'member',
    tag: 'test',
    summary: '',
    body: v.strictObject({ n: v.number() }),
    ...extra,
  });

const echo = httpRoute(testRoute('echo'), async ({ body, principal }) => ({
  n: body.n,
  who: principal.principalId,
  role: principal.role,
  teams: principal.teamIds,
}));

/** A body that may also be sent as text (`bodyContentTypes`); the route decodes and validates it. */
const textOrJson = httpRoute(
  testRoute('textOrJson', { bodyContentTypes: ['application/json', 'text/csv'], deferBodyValidation: true }),
  async ({ body, event }) => ({ body: body as unknown, base64: event.isBase64Encoded }),
);

const adminOnly = httpRoute(
  route({ id: 'adm', method: 'POST', path: '/adm', entry: 'test', auth: 'admin', tag: 'test', summary: '' }),
  async () => ({ ok: true }),
);

const orgId = `org_mw${Date.now()}`;
const userId = `user_mw${Date.now()}`;

async function authorized(key: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${key}` };
}

describe('HTTP middleware against DynamoDB Local', () => {
  let key: { id: string; key: string };

  beforeAll(async () => {
    await ensureUser({
      id: userId,
      organizationId: orgId,
      email: `${userId}@x.example`,
      name: 'u',
      role: 'member',
      createdAt: '',
    });
    key = await createApiKey(orgId, userId, 'user', 'mw', userId);
  });

  it('passes a verified principal and a validated body to the route', async () => {
    const res = await echo(event(await authorized(key.key), { body: '{"n":3}' }), context);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? '')).toEqual({ n: 3, who: userId, role: 'member', teams: [] });
  });

  it.each([
    ['no Authorization header', {}],
    ['an unknown key', { authorization: 'Bearer ak_nope' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('answers 401 {error} for %s, whatever the body', async (_label, auth) => {
    for (const body of ['{"n":1}', '', '{"n":']) {
      const res = await echo(event(auth, { body }), context);
      expect({ status: res.statusCode, body: JSON.parse(res.body ?? '') }).toEqual({
        status: 401,
        body: { error: 'Unauthorized' },
      });
    }
  });

  it('refuses a revoked key on the next request, though the container keeps the key’s identity', async () => {
    const fresh = await createApiKey(orgId, userId, 'user', 'to revoke', userId);
    const ctx = await authorized(fresh.key);
    expect((await echo(event(ctx, { body: '{"n":1}' }), context)).statusCode).toBe(200);
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.principalKey(orgId, userId, fresh.id),
        UpdateExpression: 'SET revokedAt = :t',
        ExpressionAttributeValues: { ':t': new Date().toISOString() },
      }),
    );
    const res = await echo(event(ctx, { body: '{"n":1}' }), context);
    expect(res.statusCode).toBe(401);
  });

  it('sees a new team membership on the next request', async () => {
    const ctx = await authorized(key.key);
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.principalTeam(orgId, userId, 'team_new'),
        UpdateExpression: 'SET teamId = :t',
        ExpressionAttributeValues: { ':t': 'team_new' },
      }),
    );
    const res = await echo(event(ctx, { body: '{"n":2}' }), context);
    expect(JSON.parse(res.body ?? '').teams).toEqual(['team_new']);
  });

  it('refuses members on admin routes with 403 {error}', async () => {
    const res = await adminOnly(event(await authorized(key.key)), context);
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body ?? '')).toEqual({ error: 'FORBIDDEN' });
  });

  it('hands a listed non-JSON media type over as text, still parses JSON, and refuses the rest with 415', async () => {
    const ctx = await authorized(key.key);
    const send = async (over: Partial<HttpEvent>) => {
      const res = await textOrJson(event(ctx, over), context);
      return { status: res.statusCode, body: JSON.parse(res.body ?? '') };
    };
    expect(await send({ body: 'n\n3', headers: { 'content-type': 'text/csv; charset=utf-8' } })).toEqual({
      status: 200,
      body: { body: 'n\n3', base64: false },
    });
    const encoded = Buffer.from('n\n4').toString('base64');
    expect(
      await send({ body: encoded, isBase64Encoded: true, headers: { 'content-type': 'text/csv' } }),
    ).toEqual({ status: 200, body: { body: 'n\n4', base64: false } });
    // JSON is parsed but not validated (deferBodyValidation): the route sees the parsed value.
    expect(await send({ body: '{"n":"x"}' })).toEqual({
      status: 200,
      body: { body: { n: 'x' }, base64: false },
    });
    expect(await send({ body: '{"n":' })).toEqual({ status: 400, body: { error: 'Malformed JSON body' } });
    expect(await send({ body: 'x', headers: { 'content-type': 'text/plain' } })).toEqual({
      status: 415,
      body: { error: 'Unsupported Media Type: send application/json or text/csv' },
    });
    expect((await send({ body: 'x', headers: {} })).status).toBe(415);
    expect(await send({ body: '', headers: { 'content-type': 'text/csv' } })).toEqual({
      status: 400,
      body: { error: 'Request body is required' },
    });
    // A route without the option keeps answering 415 to anything but JSON.
    const plain = await echo(event(ctx, { body: 'n\n3', headers: { 'content-type': 'text/csv' } }), context);
    expect(plain.statusCode).toBe(415);
  });

  it('accepts JSON media types in any letter case, with spaces before parameters, and a byte order mark', async () => {
    const ctx = await authorized(key.key);
    for (const [type, body] of [
      ['APPLICATION/JSON', '{"n":5}'],
      ['Application/Json ; charset=UTF-8', '{"n":5}'],
      ['application/merge-patch+json', '{"n":5}'],
      ['application/json', '\uFEFF{"n":5}'],
    ] as const) {
      const res = await echo(event(ctx, { body, headers: { 'Content-Type': type } }), context);
      expect({ type, status: res.statusCode, n: JSON.parse(res.body ?? '').n }).toEqual({
        type,
        status: 200,
        n: 5,
      });
    }
    // Still a 415 for a type that is not JSON, whatever its case.
    const text = await echo(
      event(ctx, { body: '{"n":5}', headers: { 'content-type': 'TEXT/PLAIN' } }),
      context,
    );
    expect(text.statusCode).toBe(415);
  });

  it.each([
    ['a body over the limit', { body: JSON.stringify({ n: 1, pad: 'x'.repeat(1024 * 1024 + 10) }) }, 413],
    ['a non-JSON content type', { body: '{"n":1}', headers: { 'content-type': 'text/plain' } }, 415],
    ['malformed JSON', { body: '{"n":' }, 400],
    ['a missing body', {}, 400],
    ['an unknown field', { body: '{"n":1,"organizationId":"org_other"}' }, 400],
    ['a wrong type', { body: '{"n":"1"}' }, 400],
  ])('answers %s with the right 4xx and an {error} body', async (_name, over, status) => {
    const res = await echo(event(await authorized(key.key), over as Partial<HttpEvent>), context);
    expect(res.statusCode).toBe(status);
    const body = JSON.parse(res.body ?? '');
    expect(typeof body.error).toBe('string');
    expect(res.body).not.toMatch(/\bat .*\.ts:\d+/);
  });
});
