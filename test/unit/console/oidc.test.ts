import { createHash } from 'node:crypto';
import { oidcOf } from '../../../console/src/api';
import {
  authorizationUrl,
  type Callback,
  callbackProblem,
  codeChallenge,
  credentialFrom,
  newPending,
  type OidcConfig,
  providerName,
  randomToken,
  readCallback,
  tokenRequestBody,
} from '../../../console/src/oidc';

/** The console's side of the OpenID Connect code flow with PKCE: pure parts, no browser. */
const cfg: OidcConfig = { issuer: 'https://login.acme.test/', clientId: 'finops-console' };
const pending = newPending('https://d1.cloudfront.net/?x=1#/alerts', '#/alerts');
const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

describe('PKCE', () => {
  it('draws 43-character base64url verifiers, state and nonce, each different', () => {
    const all = [randomToken(), randomToken(), pending.state, pending.nonce, pending.verifier];
    for (const t of all) expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(all).size).toBe(all.length);
  });

  it('derives the S256 challenge: base64url(SHA-256(verifier)), no padding', async () => {
    // Checked against node:crypto's SHA-256, for fresh verifiers (no padding, URL-safe alphabet).
    for (let i = 0; i < 20; i++) {
      const v = randomToken();
      expect(await codeChallenge(v)).toBe(createHash('sha256').update(v).digest('base64url'));
    }
    expect(await codeChallenge('a'.repeat(43))).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('the authorization request', () => {
  it('asks for a code with state, nonce and an S256 challenge, back to the page itself', () => {
    expect(pending.redirectUri).toBe('https://d1.cloudfront.net/');
    const url = new URL(authorizationUrl('https://login.acme.test/authorize?tenant=t', cfg, pending, 'ch'));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: 't',
      response_type: 'code',
      client_id: 'finops-console',
      redirect_uri: 'https://d1.cloudfront.net/',
      scope: 'openid email',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    // The verifier never leaves the tab before the token request.
    expect(url.toString()).not.toContain(pending.verifier);
    const scoped = new URL(
      authorizationUrl('https://x.test/a', { ...cfg, scope: 'openid profile' }, pending, 'c'),
    );
    expect(scoped.searchParams.get('scope')).toBe('openid profile');
  });
});

describe('the way back', () => {
  it('takes code and state (and the IdP extras) out of the URL, keeping the rest', () => {
    const { callback, clean } = readCallback(
      'https://d1.cloudfront.net/?code=abc&state=s1&iss=https%3A%2F%2Flogin&session_state=z&keep=1',
    );
    expect(callback).toEqual({ kind: 'code', code: 'abc', state: 's1', iss: 'https://login' });
    expect(clean).toBe('https://d1.cloudfront.net/?keep=1');
    const err = readCallback('https://d1.cloudfront.net/?error=access_denied&error_description=no&state=s1');
    expect(err.callback).toEqual({ kind: 'error', error: 'access_denied', description: 'no', state: 's1' });
    expect(err.clean).toBe('https://d1.cloudfront.net/');
    expect(readCallback('https://d1.cloudfront.net/#/dashboards')).toEqual({
      callback: { kind: 'none' },
      clean: null,
    });
  });

  it('completes only the sign-in this tab started (state), and says why not otherwise', () => {
    const code = (state: string | null): Callback => ({ kind: 'code', code: 'abc', state });
    expect(callbackProblem(code(pending.state), pending)).toBeNull();
    expect(callbackProblem(code('forged'), pending)).toMatch(/state/);
    expect(callbackProblem(code(null), pending)).toMatch(/state/);
    expect(callbackProblem(code(pending.state), null)).toMatch(/not started in this tab/);
    expect(
      callbackProblem(
        { kind: 'error', error: 'access_denied', description: null, state: pending.state },
        pending,
      ),
    ).toMatch(/refused: access_denied/);
    expect(callbackProblem({ kind: 'code', code: '', state: pending.state }, pending)).toMatch(/no code/);
    // RFC 9207: an answer naming another issuer is refused; the configured one (or none) passes.
    const from = (iss: string): Callback => ({ kind: 'code', code: 'abc', state: pending.state, iss });
    expect(callbackProblem(from('https://evil.test/'), pending, cfg.issuer)).toMatch(
      /another identity provider/,
    );
    expect(callbackProblem(from(cfg.issuer), pending, cfg.issuer)).toBeNull();
  });

  it('exchanges the code as a public client: form fields, the verifier, no secret', () => {
    expect(Object.fromEntries(tokenRequestBody(cfg, pending, 'abc'))).toEqual({
      grant_type: 'authorization_code',
      code: 'abc',
      redirect_uri: 'https://d1.cloudfront.net/',
      client_id: 'finops-console',
      code_verifier: pending.verifier,
    });
  });

  it('keeps the ID token when it is for this client and this sign-in, and refuses it otherwise', () => {
    const good = jwt({ sub: 'user_a', aud: 'finops-console', nonce: pending.nonce });
    expect(credentialFrom({ id_token: good, access_token: 'opaque' }, cfg, pending)).toBe(good);
    const listed = jwt({ aud: ['other', 'finops-console'], nonce: pending.nonce });
    expect(credentialFrom({ id_token: listed }, cfg, pending)).toBe(listed);
    expect(() =>
      credentialFrom({ id_token: jwt({ aud: 'finops-console', nonce: 'replayed' }) }, cfg, pending),
    ).toThrow(/nonce/);
    expect(() =>
      credentialFrom({ id_token: jwt({ aud: 'other', nonce: pending.nonce }) }, cfg, pending),
    ).toThrow(/aud/);
    expect(() => credentialFrom({ access_token: good }, cfg, pending)).toThrow(/no ID token/);
    expect(() => credentialFrom({ id_token: 'not-a-jwt' }, cfg, pending)).toThrow(/not a JWT/);
  });
});

describe("config.json's oidc", () => {
  it('is used only with an issuer and a client id, and names the button', () => {
    expect(oidcOf(cfg)).toBe(true);
    expect(oidcOf({ ...cfg, tokenEndpoint: 'https://x.test/t', scope: 'openid' })).toBe(true);
    expect(oidcOf({ issuer: 'https://x.test/' })).toBe(false);
    expect(oidcOf({ clientId: 'c' })).toBe(false);
    expect(oidcOf({ ...cfg, tokenEndpoint: 5 })).toBe(false);
    expect(oidcOf(null)).toBe(false);
    expect(providerName(cfg)).toBe('login.acme.test');
    expect(providerName({ ...cfg, name: 'Acme SSO' })).toBe('Acme SSO');
  });
});
