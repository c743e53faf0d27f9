import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RouteDef } from '../../shared/http/route';
import { log } from '../../shared/log';
import { lambdaContext } from './lambda-context';
import { type CompiledRoute, compileRoutes, matchRoute } from './route-matcher';

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;

export interface LocalControl {
  /** Extra routes served only locally, never deployed (`/_local/*`, `/.well-known/jwks.json`). */
  handle(
    method: string,
    path: string,
    body: unknown,
    query: URLSearchParams,
    /** The request's headers (the stand-in identity provider checks its client's credentials). */
    headers?: IncomingMessage['headers'],
  ): Promise<{ status: number; body: unknown; headers?: Record<string, string> } | undefined>;
}

/** API Gateway's own answers, which happen before any Lambda runs. */
const MAX_GATEWAY_BODY = 10 * 1024 * 1024;

/**
 * A small HTTP server that behaves like the deployed HTTP API: it matches the manifest's routes,
 * builds payload v2 events and calls the same handler modules, which verify the credential
 * themselves (there is no gateway authorizer, in AWS either).
 */
export function createLocalServer(routeDefs: readonly RouteDef[], control: LocalControl): Server {
  const routes = compileRoutes(routeDefs);
  const handlers = new Map<string, Promise<Handler>>();
  const loadHandler = (route: CompiledRoute): Promise<Handler> => {
    let h = handlers.get(route.def.id);
    if (!h) {
      const file = join(__dirname, '..', '..', 'functions', 'http', `${route.def.entry}.ts`);
      h = import(file).then((m: { handler?: Handler; default?: { handler?: Handler } }) => {
        const fn = m.handler ?? m.default?.handler;
        if (!fn) throw new Error(`${file} exports no handler`);
        return fn;
      });
      handlers.set(route.def.id, h);
    }
    return h;
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      // Bytes (the console's static files) are sent as they are, with the content type given.
      const text = body instanceof Uint8Array || typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(text);
    };
    try {
      const raw = await readRaw(req);
      if (raw === null) return send(413, { message: 'Request Entity Too Large' });

      // Only the `/_local/*` control routes read a body here; a route's body is parsed by its
      // handler alone, as in AWS (so a costly body costs the local server nothing extra).
      // A form (the local identity provider's OAuth endpoints) is read as an object of its fields.
      const controlBody =
        raw.length && url.pathname.startsWith('/_local/')
          ? /x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')
            ? Object.fromEntries(new URLSearchParams(raw.toString('utf8')))
            : safeJson(raw.toString('utf8'))
          : undefined;
      const local = await control.handle(method, url.pathname, controlBody, url.searchParams, req.headers);
      if (local) return send(local.status, local.body, local.headers);

      const match = matchRoute(routes, method, url.pathname);
      if (match.kind === 'bad-request') return send(400, { message: 'Bad Request' });
      if (match.kind !== 'match') return send(404, { message: 'Not Found' });

      const handler = await loadHandler(match.route);
      const event = buildEvent(req, url, raw, match.route, match.params);
      const ctx = lambdaContext(match.route.def.id, match.route.def.timeoutSeconds ?? 10);
      const result = await handler(event, ctx);
      send(result.statusCode ?? 200, result.body ?? '', normaliseHeaders(result.headers));
    } catch (error) {
      log.error('local gateway failure', { path: url.pathname, error });
      send(500, { message: 'Internal Server Error' });
    } finally {
      log.debug('request', { method, path: url.pathname, ms: Date.now() - started, status: res.statusCode });
    }
  });
  // Keep idle connections open longer than any client keeps them (undici: 4 s), so the client is
  // always the side that closes: with Node's default 5 s, a client that was busy for a moment could
  // reuse a socket the server had just closed ("other side closed"). API Gateway keeps them ~60 s.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function normaliseHeaders(headers: APIGatewayProxyStructuredResultV2['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(headers ?? {})) out[k] = String(val);
  return out;
}

async function readRaw(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_GATEWAY_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function buildEvent(
  req: IncomingMessage,
  url: URL,
  raw: Buffer,
  route: CompiledRoute,
  params: Record<string, string>,
) {
  const headers: Record<string, string> = {};
  for (const [k, val] of Object.entries(req.headers)) {
    if (val !== undefined) headers[k.toLowerCase()] = Array.isArray(val) ? val.join(',') : val;
  }
  const query: Record<string, string> = {};
  for (const [k, val] of url.searchParams) query[k] = query[k] ? `${query[k]},${val}` : val;
  const contentType = headers['content-type'] ?? '';
  const isText = raw.length === 0 || /json|text|xml|x-www-form-urlencoded|yaml/i.test(contentType);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: route.def.method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(raw.length ? { body: isText ? raw.toString('utf8') : raw.toString('base64') } : {}),
    isBase64Encoded: raw.length > 0 && !isText,
  };
}
