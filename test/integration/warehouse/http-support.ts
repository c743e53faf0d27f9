import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HttpEvent } from '../../../shared/http/event';
import { authenticate } from '../../../shared/http/identity';

/** The request headers that carry this credential (checked first: a refused one throws here). */
export async function authContext(credential: string): Promise<Record<string, string>> {
  const authorization = `Bearer ${credential}`;
  await authenticate(authorization);
  return { authorization };
}

/** Invokes a route handler with a payload-v2 event, as the gateway does. */
export async function invoke(
  handler: (event: HttpEvent, context: never) => Promise<APIGatewayProxyStructuredResultV2>,
  ctx: Record<string, string>,
  opts: { method?: string; path?: string; body?: unknown; params?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; headers: Record<string, unknown> }> {
  const method = opts.method ?? 'GET';
  const path = opts.path ?? '/';
  const event = {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...ctx },
    isBase64Encoded: false,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    ...(opts.params ? { pathParameters: opts.params } : {}),
    requestContext: {
      accountId: '0',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: 'r',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
  } as unknown as HttpEvent;
  const res = await handler(event, { getRemainingTimeInMillis: () => 10_000 } as never);
  return {
    status: res.statusCode ?? 200,
    body: res.body ? JSON.parse(res.body) : null,
    headers: (res.headers ?? {}) as Record<string, unknown>,
  };
}
