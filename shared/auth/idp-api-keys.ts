import { createHash } from 'node:crypto';
import { remember } from '../bounded-map';
import type { ApiKeyIntrospectionConfig } from '../config';
import { UnauthorizedError } from '../errors';
import { log } from '../log';
import { guardedPostForm, type WebhookResponse } from '../net/guarded-fetch';
import { type AuthContext, ORG_ID_PATTERN, USER_ID_PATTERN } from './principal';

/**
 * API keys the organisation's identity provider issued ("Keys are generated in the identity
 * provider's dashboard under API keys"): an `ak_` key that is not one of ours is asked about with
 * the provider's OAuth 2.0 token introspection endpoint (RFC 7662) — a form POST of
 * `token=<key>&token_type_hint=api_key`, authenticated as the service (HTTP Basic with a client id,
 * else `Bearer <secret>`). The answer must be 200 JSON with `active: true` and a principal:
 * - `sub` `user_…` and the organisation claim (`JWT_ORG_CLAIM`, `org_id`) `org_…`: that user of that
 *   organisation, with the role claim (`JWT_ROLE_CLAIM`) used as a JWT's is;
 * - `sub` `org_…`: the organisation itself (an admin), the organisation claim absent or the same.
 * `exp` in the past or `nbf` in the future refuses it. Anything else — inactive, unknown, another
 * shape, a non-200 answer, no answer within 3 s, a refused address — is a 401 like every bad
 * credential. An answer (active or not) is kept per container for `cacheSeconds` (default 60 s; an
 * active one never past its `exp`, an inactive one at most 10 s); a provider that fails is asked
 * again on the next request. docs/auth.md#api-keys-from-the-identity-provider.
 */
export interface IdpKeyVerifier {
  verify(key: string): Promise<AuthContext>;
}

export const INTROSPECTION_TIMEOUT_MS = 3000;
/** How long an inactive (revoked, unknown) answer is kept at most. */
export const INACTIVE_ANSWER_TTL_MS = 10_000;
const MAX_ANSWER_BYTES = 16 * 1024;
const CACHE_MAX = 1000;
/** What an identity provider's key may look like: anything else is refused without a call. */
const IDP_KEY = /^ak_[A-Za-z0-9_-]{16,200}$/;

export interface IntrospectionClaims {
  orgClaim: string;
  roleClaim: string;
}

/** The caller an introspection answer names, or undefined when it names nobody acceptable. */
export function principalFromIntrospection(
  answer: unknown,
  claims: IntrospectionClaims,
  nowSeconds: number,
): AuthContext | undefined {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return undefined;
  const a = answer as Record<string, unknown>;
  if (a.active !== true) return undefined;
  if (a.exp !== undefined && !(typeof a.exp === 'number' && a.exp > nowSeconds)) return undefined;
  if (a.nbf !== undefined && !(typeof a.nbf === 'number' && a.nbf <= nowSeconds)) return undefined;
  const sub = a.sub;
  const org = a[claims.orgClaim];
  const role = a[claims.roleClaim];
  if (typeof sub !== 'string') return undefined;
  if (USER_ID_PATTERN.test(sub)) {
    if (typeof org !== 'string' || !ORG_ID_PATTERN.test(org)) return undefined;
    return {
      orgId: org,
      principalId: sub,
      kind: 'user',
      credential: 'idpkey',
      ...(typeof role === 'string' ? { claimRole: role } : {}),
    };
  }
  if (ORG_ID_PATTERN.test(sub)) {
    if (org !== undefined && org !== sub) return undefined;
    return { orgId: sub, principalId: sub, kind: 'org', credential: 'idpkey' };
  }
  return undefined;
}

export interface IntrospectionOptions {
  config: ApiKeyIntrospectionConfig;
  claims: IntrospectionClaims;
  /** The client secret (the configured value, or the Secrets Manager secret read by the caller). */
  secret(): Promise<string | undefined>;
  /** The call itself (tests may count or fail it); default `guardedPostForm`. */
  post?: typeof guardedPostForm;
}

/** The Authorization header of the introspection call: Basic with a client id, else Bearer. */
function clientAuthorization(clientId: string | undefined, secret: string | undefined): string | undefined {
  if (clientId !== undefined) {
    // RFC 6749 §2.3.1: both parts form-url-encoded before the Basic encoding.
    const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(secret ?? '')}`;
    return `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  return secret ? `Bearer ${secret}` : undefined;
}

export function createIntrospectionVerifier(opts: IntrospectionOptions): IdpKeyVerifier {
  const { config } = opts;
  const post = opts.post ?? guardedPostForm;
  const ttlMs = config.cacheSeconds * 1000;
  /** Key hash → the answer's principal (null: inactive) and until when it is kept. */
  const cache = new Map<string, { auth: AuthContext | null; expires: number }>();
  /** Concurrent requests with the same key share one call. */
  const inFlight = new Map<string, Promise<AuthContext | null>>();

  const keep = (hash: string, auth: AuthContext | null, expires: number) => {
    if (expires <= Date.now()) return;
    remember(cache, hash, { auth, expires }, CACHE_MAX);
  };

  async function introspect(key: string, hash: string): Promise<AuthContext | null> {
    const authorization = clientAuthorization(config.clientId, await opts.secret());
    let res: WebhookResponse;
    try {
      res = await post(
        config.url,
        { token: key, token_type_hint: 'api_key' },
        {
          headers: { ...(authorization ? { authorization } : {}), 'cache-control': 'no-store' },
          timeoutMs: config.timeoutMs,
          maxBytes: MAX_ANSWER_BYTES,
          loopback: config.loopback,
        },
      );
    } catch (error) {
      log.warn('API key introspection: the identity provider could not be reached', { error });
      throw error;
    }
    if (res.status !== 200) {
      log.warn('API key introspection: the identity provider answered an error', { status: res.status });
      throw new Error(`introspection answered ${res.status}`);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(res.text);
    } catch (error) {
      log.warn('API key introspection: the answer is not JSON', { error });
      throw error;
    }
    const now = Date.now();
    const auth = principalFromIntrospection(answer, opts.claims, Math.floor(now / 1000)) ?? null;
    const exp = (answer as { exp?: unknown }).exp;
    const until = auth
      ? Math.min(now + ttlMs, typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY)
      : now + Math.min(ttlMs, INACTIVE_ANSWER_TTL_MS);
    keep(hash, auth, until);
    return auth;
  }

  return {
    async verify(key) {
      if (!IDP_KEY.test(key)) throw new UnauthorizedError();
      const hash = createHash('sha256').update(key).digest('hex');
      const hit = cache.get(hash);
      if (hit && hit.expires > Date.now()) {
        if (hit.auth) return hit.auth;
        throw new UnauthorizedError();
      }
      if (hit) cache.delete(hash);
      let pending = inFlight.get(hash);
      if (!pending) {
        pending = introspect(key, hash).finally(() => inFlight.delete(hash));
        inFlight.set(hash, pending);
      }
      const auth = await pending;
      if (!auth) throw new UnauthorizedError();
      return auth;
    },
  };
}
