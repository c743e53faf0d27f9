import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as authorizer } from '../../../functions/http/authorizer';
import type { HttpEvent } from '../../../shared/http/event';

/** The authorizer context API Gateway would pass for this credential. */
export async function authContext(credential: string): Promise<Record<string, string>> {
  const res = await authorizer({ headers: { authorization: `Bearer ${credential}` }, identitySource: [] });
  if (!res.isAuthorized) throw new Error('credential refused');
  return res.context as Record<string, string>;
}

/** Invokes a route handler with a payload-v2 event, as the gateway does after the authorizer. */
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
    headers: opts.body !== undefined ? { 'content-type': 'application/json' } : {},
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
      authorizer: { lambda: ctx },
    },
  } as unknown as HttpEvent;
  const res = await handler(event, { getRemainingTimeInMillis: () => 10_000 } as never);
  return {
    status: res.statusCode ?? 200,
    body: res.body ? JSON.parse(res.body) : null,
    headers: (res.headers ?? {}) as Record<string, unknown>,
  };
}
