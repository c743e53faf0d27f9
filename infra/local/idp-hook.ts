import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, loadOrCreateSigningKey, mintToken, type StoredKey } from './idp';
import { handleIdpApiKeys, startIdpApiKeys } from './idp-api-keys';
import type { LocalHook } from './local-hook';
import type { DemoSeed } from './seed';

/**
 * The local identity provider as a minimal OpenID Connect provider (authorization code flow with
 * PKCE S256, one public client: the web console), local only, never deployed; in AWS the
 * organisation's IdP signs people in through the same flow:
 * - `GET /_local/idp/.well-known/openid-configuration`: the discovery document;
 * - `GET /_local/idp/authorize?response_type=code&client_id&redirect_uri&state&nonce&code_challenge
 *   &code_challenge_method=S256`: a "sign in as" page listing the demo users; choosing one
 *   (`POST /_local/idp/authorize`, a form) redirects to `redirect_uri?code&state`;
 * - `POST /_local/idp/token` (form: grant_type=authorization_code, code, redirect_uri, client_id,
 *   code_verifier): checks the verifier against the challenge, the redirect URI and the client, and
 *   that the code is unused (a code is good once, for a minute), then answers `id_token` and
 *   `access_token`: session JWTs for an hour signed with the key whose JWKS the server publishes
 *   (`npm run token` mints the same claims).
 * Its API keys and their introspection endpoint (`/_local/idp/api-keys`, `/_local/idp/introspect`)
 * are in ./idp-api-keys.ts.
 * The one client is `cost-management-local` (the local API's JWT audience); its redirect URIs are
 * the console's address on this server under both loopback names (`127.0.0.1` and `localhost`).
 * A refused authorization request is an HTML page (a person is looking at it); the token
 * endpoint, called by the console's script, answers OAuth's JSON errors.
 */
export const IDP_PATH = '/_local/idp';
export const IDP_TOKEN_TTL_SECONDS = 3600;
export const LOCAL_CLIENT_ID = LOCAL_AUDIENCE;
const CODE_TTL_MS = 60_000;

export interface DemoUser {
  userId: string;
  name: string;
  email: string;
  orgId: string;
  role: 'admin' | 'member';
}

interface Grant {
  userId: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce?: string;
  expiresAt: number;
}

let users: DemoUser[] = [];
/** The signing key, read once when the hook starts (the server publishes its JWKS). */
let key: StoredKey | undefined;
const codes = new Map<string, Grant>();

export function demoUsers(seed: DemoSeed): DemoUser[] {
  return [
    {
      userId: seed.users.admin,
      name: 'Demo Admin',
      email: seed.emails.admin,
      orgId: seed.orgId,
      role: 'admin',
    },
    {
      userId: seed.users.member,
      name: 'Demo Member',
      email: seed.emails.member,
      orgId: seed.orgId,
      role: 'member',
    },
    {
      userId: seed.users.outsider,
      name: 'Acme Admin',
      email: seed.emails.outsider,
      orgId: seed.otherOrgId,
      role: 'admin',
    },
  ];
}

/** The server's own base URL (set by the local runtime once it listens): `http://127.0.0.1:<port>`. */
const base = () => process.env.APP_BASE_URL ?? '';

/**
 * The origin a browser reached this server on: `http://localhost:<port>` when it was opened as
 * `localhost`, the server's own base URL otherwise (any other Host is not trusted). The console's
 * API URL and the provider's endpoints are given on that origin, so the page stays same-origin
 * (its CSP allows `connect-src 'self'` only) whichever of the two names it was opened on.
 */
export function localOrigin(headers?: IncomingHttpHeaders): string {
  const own = base();
  const host = headers?.host;
  if (!own || !host) return own;
  const port = new URL(own).port;
  return LOOPBACK_NAMES.some((name) => host === `${name}:${port}`) ? `http://${host}` : own;
}
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost'];

/** The console's addresses on this server: the local client's registered redirect URIs (both names). */
export const localRedirectUris = () => {
  const port = new URL(base()).port;
  return LOOPBACK_NAMES.map((name) => `http://${name}:${port}/console/`);
};

const authorizationEndpoint = (origin: string) => `${origin}${IDP_PATH}/authorize`;
const tokenEndpoint = (origin: string) => `${origin}${IDP_PATH}/token`;

/** What `config.json` says about this provider on the local server, for a page opened on `origin`. */
export function localOidcConfig(origin = base()) {
  return {
    issuer: LOCAL_ISSUER,
    clientId: LOCAL_CLIENT_ID,
    name: 'the local identity provider',
    // The issuer is a URN (the local JWTs' `iss`), so the endpoints are given rather than discovered.
    authorizationEndpoint: authorizationEndpoint(origin),
    tokenEndpoint: tokenEndpoint(origin),
  };
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
const NO_STORE = { 'cache-control': 'no-store' };
const oauthError = (error: string, description: string): Answer => ({
  status: 400,
  body: { error, error_description: description },
  headers: NO_STORE,
});

/** The authorization request's parameters, checked; a string is why it is refused. */
function authorizationRequest(q: Record<string, string | undefined>) {
  if (q.client_id !== LOCAL_CLIENT_ID) return { fatal: 'client_id: not a client of this provider' };
  if (!localRedirectUris().includes(q.redirect_uri ?? ''))
    return { fatal: 'redirect_uri: not registered for this client' };
  const redirect = (error: string): Answer => {
    const to = new URL(q.redirect_uri!);
    to.searchParams.set('error', error);
    if (q.state) to.searchParams.set('state', q.state);
    return { status: 302, body: '', headers: { location: to.toString(), ...NO_STORE } };
  };
  if (q.response_type !== 'code') return { refused: redirect('unsupported_response_type') };
  if (q.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge ?? ''))
    return { refused: redirect('invalid_request') };
  return {
    ok: {
      clientId: q.client_id,
      redirectUri: q.redirect_uri!,
      challenge: q.code_challenge!,
      state: q.state ?? '',
      nonce: q.nonce,
    },
  };
}

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function signInPage(params: Record<string, string>): string {
  const hidden = Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${html(k)}" value="${html(v)}">`)
    .join('');
  const buttons = users
    .map(
      (u) =>
        `<li><button name="user" value="${html(u.userId)}" data-user="${html(u.userId)}"><strong>${html(u.name)}</strong> <span>${html(u.role)} · ${html(u.orgId)} · ${html(u.email)}</span></button></li>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in as — local identity provider</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}ul{list-style:none;padding:0}button{display:block;width:100%;text-align:left;padding:.75rem;margin:.5rem 0;font:inherit;cursor:pointer}span{color:#555;font-size:.9em}</style></head><body><h1>Sign in as</h1><p>The local identity provider (<code>npm start</code> only): pick a demo user.</p><form method="post" action="${IDP_PATH}/authorize">${hidden}<ul>${buttons}</ul></form></body></html>`;
}

/**
 * An error a person meets in the browser (a bad authorization request: it cannot be sent back to
 * an unregistered redirect URI), as a page: what went wrong, and the way back to the console.
 */
function errorPage(title: string, detail: string): Answer {
  const back = localRedirectUris()
    .map((u) => `<a href="${html(u)}">${html(u)}</a>`)
    .join(' or ');
  return {
    status: 400,
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${html(title)} — local identity provider</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}code{background:#f3f4f6;padding:0 .25rem}</style></head><body><h1>${html(title)}</h1><p>${html(detail)}</p><p>Open the console at ${back} and sign in from there.</p></body></html>`,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      ...NO_STORE,
    },
  };
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export const idpHook: LocalHook = {
  name: 'idp',
  async start(ctx) {
    users = demoUsers(ctx.seed);
    key = await loadOrCreateSigningKey(ctx.stateDir);
    startIdpApiKeys(ctx.stateDir);
  },
  async handle(method, path, body, query, headers) {
    if (!path.startsWith(`${IDP_PATH}/`)) return undefined;
    const keysAnswer = handleIdpApiKeys(method, path, body, headers);
    if (keysAnswer) return keysAnswer;
    if (path === `${IDP_PATH}/.well-known/openid-configuration` && method === 'GET')
      return {
        status: 200,
        body: {
          issuer: LOCAL_ISSUER,
          authorization_endpoint: authorizationEndpoint(localOrigin(headers)),
          token_endpoint: tokenEndpoint(localOrigin(headers)),
          jwks_uri: `${base()}/.well-known/jwks.json`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid', 'email'],
        },
      };
    if (path === `${IDP_PATH}/authorize` && (method === 'GET' || method === 'POST')) {
      const q =
        method === 'GET'
          ? Object.fromEntries(query ?? [])
          : ((body && typeof body === 'object' ? body : {}) as Record<string, string | undefined>);
      const checked = authorizationRequest(q);
      if (checked.fatal) return errorPage('This sign-in request was refused', checked.fatal);
      if (checked.refused) return checked.refused;
      const req = checked.ok!;
      if (method === 'GET') {
        const { user: _user, ...params } = q as Record<string, string>;
        return {
          status: 200,
          body: signInPage(params),
          headers: {
            'content-type': 'text/html; charset=utf-8',
            'content-security-policy':
              "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
            ...NO_STORE,
          },
        };
      }
      const user = users.find((u) => u.userId === q.user);
      if (!user) return errorPage('Unknown user', 'user: not one of the demo users');
      const code = randomBytes(32).toString('base64url');
      codes.set(code, {
        userId: user.userId,
        clientId: req.clientId,
        redirectUri: req.redirectUri,
        challenge: req.challenge,
        ...(req.nonce ? { nonce: req.nonce } : {}),
        expiresAt: Date.now() + CODE_TTL_MS,
      });
      const to = new URL(req.redirectUri);
      to.searchParams.set('code', code);
      if (req.state) to.searchParams.set('state', req.state);
      return { status: 302, body: '', headers: { location: to.toString(), ...NO_STORE } };
    }
    if (path === `${IDP_PATH}/token` && method === 'POST') {
      const f = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
      if (f.grant_type !== 'authorization_code')
        return oauthError('unsupported_grant_type', 'grant_type: authorization_code only');
      const code = typeof f.code === 'string' ? f.code : '';
      const grant = codes.get(code);
      // A code is presented once: whatever the outcome, it is spent.
      codes.delete(code);
      if (!grant || grant.expiresAt < Date.now())
        return oauthError('invalid_grant', 'code: unknown, expired or already used');
      if (f.client_id !== grant.clientId)
        return oauthError('invalid_grant', 'client_id: not the code’s client');
      if (f.redirect_uri !== grant.redirectUri)
        return oauthError('invalid_grant', 'redirect_uri: not the one the code was issued for');
      if (typeof f.code_verifier !== 'string' || !/^[A-Za-z0-9._~-]{43,128}$/.test(f.code_verifier))
        return oauthError('invalid_grant', 'code_verifier: 43 to 128 unreserved characters');
      if (s256(f.code_verifier) !== grant.challenge)
        return oauthError('invalid_grant', 'code_verifier: does not match the code_challenge');
      const user = users.find((u) => u.userId === grant.userId)!;
      const claims = {
        userId: user.userId,
        orgId: user.orgId,
        role: user.role,
        email: user.email,
        expiresInSeconds: IDP_TOKEN_TTL_SECONDS,
      };
      return {
        status: 200,
        body: {
          token_type: 'Bearer',
          expires_in: IDP_TOKEN_TTL_SECONDS,
          id_token: await mintToken(key!, {
            ...claims,
            audience: grant.clientId,
            ...(grant.nonce ? { nonce: grant.nonce } : {}),
          }),
          access_token: await mintToken(key!, claims),
          scope: 'openid email',
        },
        headers: NO_STORE,
      };
    }
    return undefined;
  },
};
