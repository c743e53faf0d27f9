import { routes } from '../../shared/routes';
import { buildOpenApi, type OpenApiDocument } from '../openapi';
import type { LocalHook } from './local-hook';

let doc: OpenApiDocument | undefined;

/**
 * Serves the OpenAPI document at `GET /openapi.json` on the local server (no credential needed,
 * like the JWKS). Not deployed: in AWS the document is an artefact of `npm run openapi`.
 */
export const openApiHook: LocalHook = {
  name: 'openapi',
  async handle(method, path) {
    if (method !== 'GET' || path !== '/openapi.json') return undefined;
    doc ??= buildOpenApi(routes, process.env.APP_BASE_URL ? { serverUrl: process.env.APP_BASE_URL } : {});
    return { status: 200, body: doc };
  },
};
