import httpJsonBodyParser from '@middy/http-json-body-parser';
import { config } from '../config';
import { PayloadTooLargeError, ShapedError } from '../errors';
import { requestRejection, validationFailure } from '../validation';
import { type HttpEvent, type HttpMiddleware, mediaTypeOf } from './event';
import type { RouteDef } from './route';

/**
 * The request body, before any schema looks at it: its size, its presence, its media type and its
 * JSON. Every 400 here is in the route's validation style (`requestRejection`).
 */

/** 413 over the size limit (any route); the route's 400 when a declared body is missing. */
export function bodyLimits(def: RouteDef): HttpMiddleware {
  return {
    before: async (request) => {
      const raw = request.event.body;
      if (raw !== undefined && raw !== null) {
        const size = request.event.isBase64Encoded
          ? Math.floor((raw.length * 3) / 4)
          : Buffer.byteLength(raw);
        if (size > config().maxBodyBytes) throw new PayloadTooLargeError();
      }
      if (def.body && !def.deferBodyParsing) requireBody(def, raw);
    },
  };
}

/** The route's 400 when its declared body is missing. */
function requireBody(def: RouteDef, raw: string | undefined | null): void {
  if (raw === undefined || raw === null || raw === '') {
    throw requestRejection(def.validation ?? 'plain', 'Request body is required');
  }
}

/**
 * Deepest nesting of arrays and objects a JSON body may have. The deepest body a schema accepts
 * (a dashboard widget's `conditions`, 16 levels, inside the widget) needs about 24; past this the
 * body is refused before it is parsed, so no parser, schema or hash recurses once per level.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Most keys one JSON object of a body may have. The widest object a schema accepts is a free-form
 * map (scope `filters`, dashboard `conditions`, an enrichment entry's 20 columns); past this the
 * body is refused before it is parsed: `JSON.parse` of an object with tens of thousands of keys
 * costs hundreds of milliseconds (V8 dictionary objects), a long array does not.
 */
export const MAX_JSON_KEYS = 1000;

/**
 * Why a JSON text may not be parsed, or null: more than `MAX_JSON_DEPTH` arrays or objects open at
 * once, or an object with more than `MAX_JSON_KEYS` keys (counted by their `:` outside strings).
 * One pass, no recursion; malformed JSON is left to the parser.
 */
export function jsonShapeProblem(
  text: string,
  limits: { depth: number; keys: number } = { depth: MAX_JSON_DEPTH, keys: MAX_JSON_KEYS },
): string | null {
  const keys = new Int32Array(limits.depth + 2);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limits.depth) return `JSON body is nested too deeply (at most ${limits.depth} levels)`;
      keys[depth] = 0;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x3a && depth > 0) {
      const count = (keys[depth] ?? 0) + 1;
      if (count > limits.keys) return `JSON object has too many keys (at most ${limits.keys})`;
      keys[depth] = count;
    }
  }
  return null;
}

/** `application/json` and `application/<anything>+json`: the types the JSON body parser accepts. */
const JSON_MEDIA_TYPE = /^application\/(?:[^;]+\+)?json$/;

function listOf(types: readonly string[]): string {
  return types.length > 1 ? `${types.slice(0, -1).join(', ')} or ${types.at(-1)}` : (types[0] ?? '');
}

/**
 * The body middleware of a route: none without a body schema; the JSON parser (415 for any other
 * media type) by default; with `bodyContentTypes`, the JSON parser for a listed JSON type, the
 * body as text for a listed non-JSON type, and 415 naming the listed types for anything else.
 * A JSON body nested deeper than `MAX_JSON_DEPTH`, or with an object of more than `MAX_JSON_KEYS`
 * keys, is the route's 400 before it is parsed (`jsonShapeProblem`).
 * A JSON body must be an object (every body schema is one): an array, a string, a number or null
 * is the route's 400, as malformed JSON is.
 */
export function bodyParser(def: RouteDef): HttpMiddleware {
  if (!def.body || def.deferBodyParsing) return { before: async () => {} };
  const style = def.validation ?? 'plain';
  const parser = httpJsonBodyParser({ disableContentTypeError: false });
  const json: NonNullable<HttpMiddleware['before']> = async (request) => {
    normaliseJsonRequest(request.event);
    const raw = request.event.body;
    if (typeof raw === 'string') {
      const text = request.event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      const problem = jsonShapeProblem(text);
      if (problem) throw requestRejection(style, problem);
    }
    try {
      await parser.before?.(request);
    } catch (error) {
      const e = error as { statusCode?: number; message?: string };
      if (e.statusCode === 415 && /malformed/i.test(e.message ?? '')) {
        throw requestRejection(style, 'Malformed JSON body');
      }
      throw error;
    }
    const body: unknown = request.event.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw validationFailure(style, 'body', [{ path: '(body)', message: 'must be a JSON object' }]);
    }
  };
  if (!def.bodyContentTypes) return { before: json };
  const listed = def.bodyContentTypes.map((t) => t.toLowerCase());
  const acceptsJson = listed.some((t) => JSON_MEDIA_TYPE.test(t));
  return {
    before: async (request) => {
      const media = mediaTypeOf(request.event.headers);
      if (JSON_MEDIA_TYPE.test(media)) {
        if (acceptsJson) return json(request);
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
 * The JSON body of a `deferBodyParsing` route, checked as `bodyLimits` and `bodyParser` check
 * every other route's (the route's 400 when missing, malformed or not an object; 415 for another
 * media type), when the function asks for it. Reads the event once; later calls answer the same.
 */
export function readDeferredBody(def: RouteDef, event: HttpEvent): () => Promise<unknown> {
  let read: Promise<unknown> | undefined;
  const parse = async (): Promise<unknown> => {
    requireBody(def, event.body);
    const request = { event: { ...event } } as Parameters<NonNullable<HttpMiddleware['before']>>[0];
    await bodyParser({ ...def, deferBodyParsing: false }).before?.(request);
    return request.event.body;
  };
  return () => {
    read ??= parse();
    return read;
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
