import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../auth/principal';
import { withInvocationLogContext } from '../log';
import { bodyLimits, bodyParser } from './body';
import { type HttpEvent, lowerCaseHeaders } from './event';
import { idempotency } from './idempotency';
import { credential, errorResponses, principal, routeState, validation } from './middlewares';
import { type HttpResult, isTaggedResult, toApiGatewayResult } from './responses';
import type { Infer, RouteDef } from './route';

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

/**
 * Wraps a route's function in the shared middleware chain (see `buildRoute`). The function
 * receives typed input and returns a body (200, or the route's `successStatus`) or a
 * `respond(...)` result.
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

/**
 * The middlewares in the order a request meets them; the first failure answers (in the spec's
 * shape, by `errorResponses`) and nothing after it runs:
 * 1. the request's credential, verified here (401), before anything else is read;
 * 2. the body's size (413) and presence, media type (415) and JSON (the route's 400);
 * 3. the principal as of now and the route's role (401 revoked, 403);
 * 4. body, query and path against the route's schemas (the route's 400);
 * 5. on POST, the `Idempotency-Key` (./idempotency.ts): a repeat gets the first answer (400, 409, 422).
 */
function buildRoute<R extends RouteDef, T>(def: R, fn: RouteFn<R, T>, options: RouteOptions<R, T>) {
  const chain = middy<HttpEvent, APIGatewayProxyStructuredResultV2, Error, Context>({
    timeoutEarlyInMillis: 0,
  })
    .use(errorResponses(def))
    .use(credential())
    .use(bodyLimits(def))
    .use(bodyParser(def))
    .use(principal(def, options.prefetch as Parameters<typeof principal>[1]))
    .use(validation(def))
    .use(idempotency(def))
    .handler(async (event) => {
      const state = routeState(event);
      const result = await fn({
        body: state.body as Infer<R['body']>,
        query: state.query as Infer<R['query']>,
        params: state.params as Infer<R['params']>,
        principal: state.principal as Principal,
        headers: lowerCaseHeaders(event.headers),
        event,
        prefetched: state.prefetched as T,
      });
      if (isTaggedResult(result)) return toApiGatewayResult(result);
      return toApiGatewayResult({ statusCode: def.successStatus ?? 200, body: result });
    });
  // Every log line of the invocation carries the Lambda's and the gateway's request ids.
  return withInvocationLogContext(chain);
}
