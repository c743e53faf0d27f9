import type { AuthContext, Principal } from '../auth/principal';
import { isAdmin } from '../auth/principal';
import { AppError, DependencyUnavailableError, ForbiddenError } from '../errors';
import { log } from '../log';
import { parseOrThrow } from '../validation';
import type { HttpEvent, HttpMiddleware } from './event';
import { authenticate, authorizationOf, loadPrincipal } from './identity';
import { type HttpResult, toApiGatewayResult } from './responses';
import type { RouteDef } from './route';

/**
 * The steps of a route other than the body's (./body.ts), each a small middy middleware. What a
 * step learns about the request is kept in its `RouteState` for the steps after it and the route.
 */

/** What the steps have established about one request, in the order they establish it. */
export interface RouteState {
  auth: AuthContext;
  principal: Principal;
  prefetched: unknown;
  body: unknown;
  query: unknown;
  params: unknown;
}

// Keyed by the invocation's event, which the steps mutate but never replace.
const states = new WeakMap<HttpEvent, Partial<RouteState>>();

/** The state of a request, created by the first step that records something. */
export function routeState(event: HttpEvent): Partial<RouteState> {
  let state = states.get(event);
  if (!state) {
    state = {};
    states.set(event, state);
  }
  return state;
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

/** First in, last out: whatever any later step or the route throws becomes the spec's answer. */
export function errorResponses(def: RouteDef): HttpMiddleware {
  return {
    onError: async (request) => {
      request.response = toApiGatewayResult(errorToResult(request.error, def));
    },
  };
}

/**
 * The request's credential, proved before anything else is looked at: a request without a valid
 * one (none, malformed, forged, expired, unknown or revoked) is a 401 whatever its body.
 */
export function credential(): HttpMiddleware {
  return {
    before: async (request) => {
      routeState(request.event).auth = await authenticate(authorizationOf(request.event));
    },
  };
}

/**
 * The caller as of now (role, teams, key revocation; 401 for a revoked key or disabled user) and
 * the route's role check (403). `prefetch`, a read that needs only the verified organisation and
 * the path, runs concurrently with the load; its path values are checked first (plain 400).
 */
export function principal(
  def: RouteDef,
  prefetch?: (ctx: { orgId: string; params: unknown }) => Promise<unknown>,
): HttpMiddleware {
  return {
    before: async (request) => {
      const state = routeState(request.event);
      const auth = state.auth as AuthContext;
      if (prefetch) {
        const params = def.params
          ? parseOrThrow(def.params, request.event.pathParameters ?? {}, 'plain', 'path')
          : undefined;
        [state.principal, state.prefetched] = await Promise.all([
          loadPrincipal(auth),
          prefetch({ orgId: auth.orgId, params }),
        ]);
      } else {
        state.principal = await loadPrincipal(auth);
      }
      if (def.auth === 'admin' && !isAdmin(state.principal)) throw new ForbiddenError('FORBIDDEN');
    },
  };
}

/**
 * Body, query and path against the route's schemas: the body in the route's validation style
 * (unless the domain validates it, `deferBodyValidation`), query and path values as plain 400s.
 */
export function validation(def: RouteDef): HttpMiddleware {
  const style = def.validation ?? 'plain';
  return {
    before: async (request) => {
      const { event } = request;
      const state = routeState(event);
      state.body =
        def.body && !def.deferBodyValidation && !def.deferBodyParsing
          ? parseOrThrow(def.body, event.body, style, 'body')
          : event.body;
      state.query = def.query
        ? parseOrThrow(def.query, event.queryStringParameters ?? {}, 'plain', 'query')
        : undefined;
      state.params = def.params
        ? parseOrThrow(def.params, event.pathParameters ?? {}, 'plain', 'path')
        : undefined;
    },
  };
}
