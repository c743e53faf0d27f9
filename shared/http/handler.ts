import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { AuthContext, Principal } from '../auth/principal';
import { isAdmin } from '../auth/principal';
import { config } from '../config';
import { loadPrincipal } from '../db/principals-repo';
import {
  AppError,
  BadRequestError,
  DependencyUnavailableError,
  ForbiddenError,
  PayloadTooLargeError,
  ShapedError,
  UnauthorizedError,
} from '../errors';
import { log, withInvocationLogContext } from '../log';
import { type HttpResult, isTaggedResult, toApiGatewayResult } from './responses';
import type { Infer, RouteDef } from './route';
import { parseOrThrow } from './validation';

export type HttpEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & {
    authorizer?: { lambda?: Record<string, unknown> };
  };
};

export interface RouteInput<R extends RouteDef> {
  body: Infer<R['body']>;
  query: Infer<R['query']>;
  params: Infer<R['params']>;
  principal: Principal;
  headers: Record<string, string | undefined>;
  event: HttpEvent;
}

type RouteFn<R extends RouteDef, T> = (
  input: RouteInput<R> & { prefetched: T },
) => Promise<HttpResult | unknown>;

export interface RouteOptions<R extends RouteDef, T> {
  /**
   * A read that needs only the verified organisation and the validated path, started at the same
   * time as the per-request principal load instead of after it (one round-trip instead of two).
   * Its result reaches the route as `prefetched`; the route still applies every permission check.
   */
  prefetch?: (ctx: { orgId: string; params: Infer<R['params']> }) => Promise<T>;
}

/** Reads the authorizer's context back into an AuthContext; anything malformed is a 401. */
export function authContextOf(event: HttpEvent): AuthContext {
  const ctx = event.requestContext.authorizer?.lambda;
  if (ctx?.authenticated !== 'true') throw new UnauthorizedError();
  const orgId = ctx?.orgId;
  const principalId = ctx?.principalId;
  const kind = ctx?.kind;
  const credential = ctx?.credential;
  if (typeof orgId !== 'string' || typeof principalId !== 'string') throw new UnauthorizedError();
  if ((kind !== 'user' && kind !== 'org') || (credential !== 'jwt' && credential !== 'apikey')) {
    throw new UnauthorizedError();
  }
  return {
    orgId,
    principalId,
    kind,
    credential,
    ...(typeof ctx?.keyId === 'string' && ctx.keyId ? { keyId: ctx.keyId } : {}),
    ...(typeof ctx?.claimRole === 'string' && ctx.claimRole ? { claimRole: ctx.claimRole } : {}),
  };
}

const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'TimeoutError',
  'RequestTimeout',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'InternalServerError',
]);

function isDependencyDown(error: unknown): boolean {
  const e = error as { name?: string; code?: string; cause?: unknown; errors?: unknown[] } | null;
  if (!e) return false;
  if (UNAVAILABLE.has(e.name ?? '') || UNAVAILABLE.has(e.code ?? '')) return true;
  if (Array.isArray(e.errors) && e.errors.some(isDependencyDown)) return true;
  return e.cause !== undefined && e.cause !== error && isDependencyDown(e.cause);
}

/** Maps any thrown value to the spec's bodies. Unknown failures are logged and answered without detail. */
export function errorToResult(error: unknown, route: { id: string }): HttpResult {
  if (error instanceof AppError) return { statusCode: error.status, body: error.body() };
  const status = (error as { statusCode?: number } | null)?.statusCode;
  if (status === 415) {
    const message = (error as Error).message;
    if (/malformed/i.test(message)) return { statusCode: 400, body: { error: 'Malformed JSON body' } };
    return { statusCode: 415, body: { error: 'Unsupported Media Type: send application/json' } };
  }
  if (isDependencyDown(error)) {
    log.warn('dependency unavailable', { route: route.id, error: String((error as Error)?.name ?? error) });
    return { statusCode: 503, body: new DependencyUnavailableError().body() };
  }
  log.error('unhandled error', { route: route.id, error });
  return { statusCode: 500, body: { error: 'INTERNAL_SERVER_ERROR' } };
}

/**
 * Wraps a route's function in the shared middleware chain: error mapping, body size limit, JSON
 * parsing, principal loading and role check, and schema validation of body, query and path.
 * The function receives typed input and returns a body (200) or a `respond(...)` result.
 */
export function httpRoute<R extends RouteDef>(def: R, fn: RouteFn<R, undefined>) {
  return buildRoute(def, fn, {});
}

/**
 * `httpRoute` with a read started concurrently with the principal load (see `RouteOptions`).
 * The prefetch comes before the function so its result type flows into the function's input.
 */
export function httpRouteWithPrefetch<R extends RouteDef, T>(
  def: R,
  prefetch: NonNullable<RouteOptions<R, T>['prefetch']>,
  fn: RouteFn<R, T>,
) {
  return buildRoute(def, fn, { prefetch });
}

function buildRoute<R extends RouteDef, T>(def: R, fn: RouteFn<R, T>, options: RouteOptions<R, T>) {
  const style = def.validation ?? 'plain';
  const base = middy<HttpEvent, APIGatewayProxyStructuredResultV2, Error, Context>({
    timeoutEarlyInMillis: 0,
  });

  // Every log line of the invocation carries the Lambda's and the gateway's request ids.
  const chain = base
    .use({
      onError: async (request) => {
        request.response = toApiGatewayResult(errorToResult(request.error, def));
      },
    })
    .use({
      before: async (request) => {
        const raw = request.event.body;
        if (raw !== undefined && raw !== null) {
          const size = request.event.isBase64Encoded
            ? Math.floor((raw.length * 3) / 4)
            : Buffer.byteLength(raw);
          if (size > config().maxBodyBytes) throw new PayloadTooLargeError();
        }
        if (def.body && (raw === undefined || raw === null || raw === '')) {
          throw new BadRequestError('Request body is required');
        }
      },
    })
    .use(bodyParser(def))
    .handler(async (event) => {
      const auth = authContextOf(event);
      let principal: Principal;
      let prefetched = undefined as T;
      if (options.prefetch) {
        const early = def.params
          ? parseOrThrow(def.params, event.pathParameters ?? {}, 'plain', 'path')
          : undefined;
        [principal, prefetched] = await Promise.all([
          loadPrincipal(auth),
          options.prefetch({ orgId: auth.orgId, params: early as Infer<R['params']> }),
        ]);
      } else {
        principal = await loadPrincipal(auth);
      }
      if (def.auth === 'admin' && !isAdmin(principal)) throw new ForbiddenError('FORBIDDEN');
      const body =
        def.body && !def.deferBodyValidation ? parseOrThrow(def.body, event.body, style, 'body') : event.body;
      const query = def.query
        ? parseOrThrow(def.query, event.queryStringParameters ?? {}, 'plain', 'query')
        : undefined;
      const params = def.params
        ? parseOrThrow(def.params, event.pathParameters ?? {}, 'plain', 'path')
        : undefined;
      const headers = lowerCaseHeaders(event.headers);
      const result = await fn({
        body: body as Infer<R['body']>,
        query: query as Infer<R['query']>,
        params: params as Infer<R['params']>,
        principal,
        headers,
        event,
        prefetched,
      });
      if (isTaggedResult(result)) return toApiGatewayResult(result);
      return toApiGatewayResult({ statusCode: def.successStatus ?? 200, body: result });
    });
  return withInvocationLogContext(chain);
}

/** `application/json` and `application/<anything>+json`: the types the JSON body parser accepts. */
const JSON_MEDIA_TYPE = /^application\/(?:[^;]+\+)?json$/;

/** The media type of a request, lower-cased, without parameters (`application/yaml`). */
export function mediaTypeOf(headers: Record<string, string | undefined> | undefined): string {
  const value = headers?.['content-type'] ?? headers?.['Content-Type'] ?? '';
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

function listOf(types: readonly string[]): string {
  return types.length > 1 ? `${types.slice(0, -1).join(', ')} or ${types.at(-1)}` : (types[0] ?? '');
}

/**
 * The body middleware of a route: none without a body schema; the JSON parser (415 for any other
 * media type) by default; with `bodyContentTypes`, the JSON parser for a listed JSON type, the
 * body as text for a listed non-JSON type, and 415 naming the listed types for anything else.
 */
function bodyParser(def: RouteDef): middy.MiddlewareObj<HttpEvent, APIGatewayProxyStructuredResultV2> {
  if (!def.body) return { before: async () => {} };
  const parser = httpJsonBodyParser({ disableContentTypeError: false });
  const json = {
    before: async (request: middy.Request<HttpEvent, APIGatewayProxyStructuredResultV2>) => {
      normaliseJsonRequest(request.event);
      return parser.before?.(request);
    },
  };
  if (!def.bodyContentTypes) return json;
  const listed = def.bodyContentTypes.map((t) => t.toLowerCase());
  const acceptsJson = listed.some((t) => JSON_MEDIA_TYPE.test(t));
  return {
    before: async (request) => {
      const media = mediaTypeOf(request.event.headers);
      if (JSON_MEDIA_TYPE.test(media)) {
        if (acceptsJson) return json.before(request);
      } else if (listed.includes(media)) {
        const raw = request.event.body;
        if (request.event.isBase64Encoded && typeof raw === 'string') {
          request.event.body = Buffer.from(raw, 'base64').toString('utf8');
          request.event.isBase64Encoded = false;
        }
        return;
      }
      throw new ShapedError(415, {
        error: `Unsupported Media Type: send ${listOf(def.bodyContentTypes ?? [])}`,
      });
    },
  };
}

/**
 * Media types are case-insensitive and may carry spaces before parameters (RFC 9110), but the JSON
 * parser only knows `application/json` and `application/json;…` in lower case: a JSON media type
 * is handed to it as its lower-case essence. A UTF-8 byte order mark, which some editors and
 * PowerShell write at the start of a file, is dropped (RFC 8259 lets parsers ignore it).
 */
function normaliseJsonRequest(event: HttpEvent): void {
  const media = mediaTypeOf(event.headers);
  if (!JSON_MEDIA_TYPE.test(media)) return;
  const headers: Record<string, string | undefined> = { ...event.headers };
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
  headers['content-type'] = media;
  event.headers = headers as HttpEvent['headers'];
  if (!event.isBase64Encoded && typeof event.body === 'string' && event.body.startsWith('\uFEFF')) {
    event.body = event.body.slice(1);
  }
}

function lowerCaseHeaders(
  headers: Record<string, string | undefined> | undefined,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, val] of Object.entries(headers ?? {})) out[k.toLowerCase()] = val;
  return out;
}

export { ShapedError };
