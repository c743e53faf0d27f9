import { bundleConsole, CONTENT_TYPES } from '../../console/bundle';
import { localOidcConfig, localOrigin } from './idp-hook';
import type { LocalHook } from './local-hook';

/** Where the local server serves the web console: the API's own origin, so no CORS is needed. */
export const CONSOLE_PATH = '/console/';

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

let bundle: Promise<Map<string, Uint8Array>> | undefined;

/**
 * Serves the web console (console/) at `/console/` on the local server: bundled in memory with
 * esbuild on the first request (a second or two), then from memory. `config.json` names this
 * server as the API. Security headers as the CloudFront distribution will send them: the page
 * may connect to its own origin only.
 */
export const consoleHook: LocalHook = {
  name: 'console',
  async handle(method, path, _body, _query, headers): Promise<Answer | undefined> {
    if (method !== 'GET' || (path !== '/console' && !path.startsWith(CONSOLE_PATH))) return undefined;
    if (path === '/console') return { status: 302, body: '', headers: { location: CONSOLE_PATH } };
    const name = path.slice(CONSOLE_PATH.length) || 'index.html';
    if (name === 'config.json')
      return {
        status: 200,
        // The local identity provider, signed in with through OpenID Connect like an IdP in AWS.
        // The API and the provider on the origin the page was opened on (127.0.0.1 or localhost):
        // the page may connect to its own origin only.
        body: { apiBaseUrl: localOrigin(headers), oidc: localOidcConfig(localOrigin(headers)) },
        headers: { 'cache-control': 'no-store', ...SECURITY_HEADERS },
      };
    bundle ??= bundleConsole();
    let files: Map<string, Uint8Array>;
    try {
      files = await bundle;
    } catch (error) {
      bundle = undefined;
      return {
        status: 500,
        body: `The console did not build: ${(error as Error)?.message ?? error}`,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      };
    }
    const file = files.get(name);
    if (!file) return { status: 404, body: { message: 'Not Found' } };
    const ext = name.slice(name.lastIndexOf('.') + 1);
    return {
      status: 200,
      body: file,
      headers: {
        'content-type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
        ...SECURITY_HEADERS,
      },
    };
  },
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};
