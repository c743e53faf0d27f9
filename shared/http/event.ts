import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** The payload-v2 event of an HTTP API route (no authorizer: the route verifies the credential). */
export type HttpEvent = APIGatewayProxyEventV2;

/** One of the route middlewares (./middlewares.ts, ./body.ts). */
export type HttpMiddleware = middy.MiddlewareObj<
  HttpEvent,
  APIGatewayProxyStructuredResultV2,
  Error,
  Context
>;

/** The media type of a request, lower-cased, without parameters (`application/yaml`). */
export function mediaTypeOf(headers: Record<string, string | undefined> | undefined): string {
  const value = headers?.['content-type'] ?? headers?.['Content-Type'] ?? '';
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

export function lowerCaseHeaders(
  headers: Record<string, string | undefined> | undefined,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, val] of Object.entries(headers ?? {})) out[k.toLowerCase()] = val;
  return out;
}
