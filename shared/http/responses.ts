import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export interface HttpResult {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const marker = Symbol('HttpResult');

export type TaggedResult = HttpResult & { [marker]: true };

export function respond(statusCode: number, body?: unknown, headers?: Record<string, string>): TaggedResult {
  return { [marker]: true, statusCode, body, ...(headers ? { headers } : {}) };
}

export const ok = (body: unknown, headers?: Record<string, string>) => respond(200, body, headers);
export const created = (body: unknown, headers?: Record<string, string>) => respond(201, body, headers);
export const noContent = () => respond(204);

export function isTaggedResult(value: unknown): value is TaggedResult {
  return typeof value === 'object' && value !== null && marker in value;
}

const BASE_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A text answer (CSV, …) sent as it is, with its media type. */
export const text = (body: string, contentType: string, headers?: Record<string, string>) =>
  respond(200, body, { ...headers, 'content-type': contentType });

export function toApiGatewayResult(result: HttpResult): APIGatewayProxyStructuredResultV2 {
  const contentType = result.headers?.['content-type'];
  const raw = typeof result.body === 'string' && contentType !== undefined && !contentType.includes('json');
  return {
    statusCode: result.statusCode,
    headers: { ...BASE_HEADERS, ...result.headers },
    body: result.body === undefined ? '' : raw ? (result.body as string) : JSON.stringify(result.body),
  };
}
