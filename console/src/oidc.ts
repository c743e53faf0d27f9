/**
 * Sign-in with the identity provider: the OpenID Connect authorization code flow with PKCE (S256)
 * for a public client (no secret). `begin` sends the browser to the authorization endpoint with a
 * fresh `state`, `nonce` and code challenge, keeping them (and the verifier) in this tab's session
 * storage; on the way back `takeCallback` removes `code` and `state` from the address bar at once
 * (before anything else runs), and `complete` checks the state, exchanges the code at the token
 * endpoint and answers the ID token, whose nonce it checks. The ID token is the credential: its
 * `aud` is the console's client id, which the API's `jwtAudience` names (docs/console.md).
 */

export interface OidcConfig {
  issuer: string;
  clientId: string;
  scope?: string;
  /** Shown on the button ("Sign in with …"); the issuer's host when absent. */
  name?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
}

/** What is kept between leaving for the IdP and coming back (session storage, this tab only). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  /** The page's hash route when sign-in began, restored on return. */
  hash: string;
}

/** The parameters an IdP may send back to the redirect URI (all removed from the address bar). */
const CALLBACK_PARAMS = ['code', 'state', 'error', 'error_description', 'error_uri', 'iss', 'session_state'];
export const PENDING_KEY = 'finops.console.oidc';
export const DEFAULT_SCOPE = 'openid email';

export type Callback =
  | { kind: 'none' }
  | { kind: 'code'; code: string; state: string | null; iss?: string }
  | { kind: 'error'; error: string; description: string | null; state: string | null };

/** Base64url without padding (RFC 7636 §3). */
export function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `bytes` random bytes, base64url: 32 give the 43 characters RFC 7636 asks of a verifier. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export async function codeChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The authorization request URL. */
export function authorizationUrl(
  endpoint: string,
  cfg: OidcConfig,
  pending: PendingSignIn,
  challenge: string,
): string {
  const url = new URL(endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('redirect_uri', pending.redirectUri);
  url.searchParams.set('scope', cfg.scope ?? DEFAULT_SCOPE);
  url.searchParams.set('state', pending.state);
  url.searchParams.set('nonce', pending.nonce);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/**
 * Reads the IdP's answer from a URL and says what the URL is without it (`clean`: the same
 * address minus the callback parameters). `none` when the URL carries no answer.
 */
export function readCallback(href: string): { callback: Callback; clean: string | null } {
  const url = new URL(href);
  const p = url.searchParams;
  if (!p.has('code') && !p.has('error')) return { callback: { kind: 'none' }, clean: null };
  const state = p.get('state');
  const callback: Callback = p.has('error')
    ? { kind: 'error', error: p.get('error') ?? '', description: p.get('error_description'), state }
    : { kind: 'code', code: p.get('code') ?? '', state, ...(p.has('iss') ? { iss: p.get('iss')! } : {}) };
  for (const k of CALLBACK_PARAMS) p.delete(k);
  return { callback, clean: url.toString() };
}

/** The redirect URI: the console's own address, without query or hash. */
export function redirectUriOf(href: string): string {
  const url = new URL(href);
  return `${url.origin}${url.pathname}`;
}

/** A fresh pending sign-in (state, nonce and verifier from the platform's CSPRNG). */
export function newPending(href: string, hash: string): PendingSignIn {
  return {
    state: randomToken(),
    nonce: randomToken(),
    verifier: randomToken(),
    redirectUri: redirectUriOf(href),
    hash,
  };
}

/** Why a callback cannot be completed, or null when its state is the pending sign-in's. */
export function callbackProblem(
  callback: Callback,
  pending: PendingSignIn | null,
  issuer?: string,
): string | null {
  if (callback.kind === 'none') return 'no answer from the identity provider';
  if (!pending) return 'this sign-in was not started in this tab: start again';
  if (callback.state !== pending.state) return 'the answer does not match this sign-in (state): start again';
  if (callback.kind === 'error')
    return `the identity provider refused: ${callback.description ?? callback.error}`;
  if (!callback.code) return 'the identity provider sent no code';
  // RFC 9207: an IdP that names itself in the answer must be the one configured (mix-up defence).
  if (callback.iss !== undefined && issuer !== undefined && callback.iss !== issuer)
    return 'the answer comes from another identity provider (iss): start again';
  return null;
}

/** The token request body (form-encoded, as RFC 6749 §4.1.3 asks; no client secret). */
export function tokenRequestBody(cfg: OidcConfig, pending: PendingSignIn, code: string): URLSearchParams {
  return new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: pending.redirectUri,
    client_id: cfg.clientId,
    code_verifier: pending.verifier,
  });
}

/** A JWT's payload, unverified (the API verifies it; the console reads `nonce` and `aud` only). */
export function jwtPayload(jwt: string): Record<string, unknown> | null {
  const part = jwt.split('.')[1];
  if (!part) return null;
  try {
    const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const v = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The credential from a token response: the ID token, checked to be for this client and this
 * sign-in (`nonce`). Received straight from the token endpoint over TLS, its signature is the
 * API's to verify (OpenID Connect Core §3.1.3.7).
 */
export function credentialFrom(response: unknown, cfg: OidcConfig, pending: PendingSignIn): string {
  const r = (response ?? {}) as { id_token?: unknown };
  if (typeof r.id_token !== 'string')
    throw new Error('the identity provider sent no ID token (scope openid?)');
  const claims = jwtPayload(r.id_token);
  if (!claims) throw new Error('the ID token is not a JWT');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(cfg.clientId)) throw new Error('the ID token is not for this console (aud)');
  if (claims.nonce !== pending.nonce) throw new Error('the ID token is not for this sign-in (nonce)');
  return r.id_token;
}

/** The endpoints: from the configuration, or the issuer's discovery document. */
export async function endpoints(cfg: OidcConfig): Promise<{ authorization: string; token: string }> {
  if (cfg.authorizationEndpoint && cfg.tokenEndpoint)
    return { authorization: cfg.authorizationEndpoint, token: cfg.tokenEndpoint };
  const r = await fetch(`${cfg.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, {
    cache: 'no-store',
  });
  if (!r.ok) throw new Error(`the identity provider's discovery document answered ${r.status}`);
  const d = (await r.json()) as { authorization_endpoint?: unknown; token_endpoint?: unknown };
  const authorization = cfg.authorizationEndpoint ?? d.authorization_endpoint;
  const token = cfg.tokenEndpoint ?? d.token_endpoint;
  if (typeof authorization !== 'string' || typeof token !== 'string')
    throw new Error("the identity provider's discovery document names no endpoints");
  return { authorization, token };
}

function peekPending(): PendingSignIn | null {
  try {
    return JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as PendingSignIn | null;
  } catch {
    return null;
  }
}

const pendingStore = {
  take(): PendingSignIn | null {
    const pending = peekPending();
    sessionStorage.removeItem(PENDING_KEY);
    return pending;
  },
  put(p: PendingSignIn): void {
    sessionStorage.setItem(PENDING_KEY, JSON.stringify(p));
  },
};

/** Leaves for the identity provider's sign-in page. */
export async function begin(cfg: OidcConfig): Promise<void> {
  const { authorization } = await endpoints(cfg);
  const pending = newPending(location.href, location.hash);
  pendingStore.put(pending);
  location.assign(authorizationUrl(authorization, cfg, pending, await codeChallenge(pending.verifier)));
}

/**
 * Reads the IdP's answer from the address bar and removes it from there at once
 * (`history.replaceState`: no code in the URL, the history or a bookmark). Call first thing.
 */
export function takeCallback(): Callback {
  const { callback, clean } = readCallback(location.href);
  if (clean) {
    // Back on the page (hash route) where sign-in began: the redirect URI carries no hash.
    const url = new URL(clean);
    url.hash = peekPending()?.hash || url.hash;
    history.replaceState(history.state, '', url.toString());
  }
  return callback;
}

/** Completes a sign-in from the IdP's answer: the ID token, or an error saying why not. */
export async function complete(cfg: OidcConfig, callback: Callback): Promise<string> {
  const pending = pendingStore.take();
  const problem = callbackProblem(callback, pending, cfg.issuer);
  if (problem || callback.kind !== 'code' || !pending) throw new Error(problem ?? 'no code');
  const { token } = await endpoints(cfg);
  const r = await fetch(token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenRequestBody(cfg, pending, callback.code),
    cache: 'no-store',
  });
  const body = (await r.json().catch(() => ({}))) as { error?: string; error_description?: string };
  if (!r.ok)
    throw new Error(
      `the identity provider refused the code: ${body.error_description ?? body.error ?? r.status}`,
    );
  return credentialFrom(body, cfg, pending);
}

/** The button's wording: "Sign in with <name>", the issuer's host when no name is configured. */
export function providerName(cfg: OidcConfig): string {
  if (cfg.name) return cfg.name;
  try {
    return new URL(cfg.issuer).host || cfg.issuer;
  } catch {
    return cfg.issuer;
  }
}
