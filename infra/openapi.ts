import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import {
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
} from '../shared/http/idempotency-key';
import type { HttpMethod, RouteDef } from '../shared/http/route';
import type { ValidationStyle } from '../shared/validation';

/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the route manifest and its valibot
 * schemas, so the document, the deployed stack and the local server can never disagree about
 * which routes exist. Used by `npm run openapi` and served locally at `GET /openapi.json`.
 */

export type SchemaObject = JsonSchema | { $ref: string };

interface MediaType {
  schema: SchemaObject;
}

export interface ResponseObject {
  description: string;
  content?: Record<string, MediaType>;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: SchemaObject;
  description?: string;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  tags: string[];
  description?: string;
  parameters?: ParameterObject[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
  'x-auth-mode': RouteDef['auth'];
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string };
  servers?: { url: string; description?: string }[];
  tags: { name: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Partial<Record<Lowercase<HttpMethod>, OperationObject>>>;
  components: {
    securitySchemes: Record<string, Record<string, string>>;
    schemas: Record<string, SchemaObject>;
  };
}

export interface BuildOptions {
  /** Base URL listed under `servers` (the local server passes its own). */
  serverUrl?: string;
}

const JSON_MEDIA = 'application/json';
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Either credential, sent the same way: `Authorization: Bearer <credential>` (spec, Authentication). */
const SECURITY: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyAuth: [] }];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The spec's error bodies, one component each. */
const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    description: 'Generic failure: `{error}` with a code such as NOT_FOUND, FORBIDDEN or Unauthorized.',
    properties: { error: { type: 'string' } },
    required: ['error'],
  },
  FieldIssue: {
    type: 'object',
    properties: { path: { type: 'string' }, message: { type: 'string' } },
    required: ['path', 'message'],
  },
  ValidationError: {
    type: 'object',
    description: 'Report create, update and duplicate validation failure.',
    properties: {
      error: { const: 'VALIDATION_ERROR' },
      details: { type: 'array', items: ref('FieldIssue') },
      reason: { type: 'string' },
    },
    required: ['error', 'details', 'reason'],
  },
  SyncError: {
    type: 'object',
    description: 'Team sync failure.',
    properties: {
      error: { type: 'string' },
      reason: { type: 'string' },
      details: { type: 'array', items: ref('FieldIssue') },
      summary: {
        type: 'object',
        properties: {
          added: { type: 'integer' },
          removed: { type: 'integer' },
          invited: { type: 'integer' },
        },
      },
    },
    required: ['error', 'reason', 'details', 'summary'],
  },
  PublishRejected: {
    type: 'object',
    description: 'Dimension publish rejected as a whole; nothing was promoted.',
    properties: {
      ok: { const: false },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: { kind: { type: 'string' }, message: { type: 'string' } },
          required: ['kind', 'message'],
        },
      },
    },
    required: ['ok', 'errors'],
  },
  GatewayError: {
    type: 'object',
    description: "API Gateway's own answer, before any function runs (throttling, a body over 10 MiB).",
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
};

const STYLE_SCHEMA: Record<ValidationStyle, string> = {
  plain: 'Error',
  detailed: 'ValidationError',
  sync: 'SyncError',
  publish: 'PublishRejected',
};

/**
 * Converts a valibot schema. Requests are described by their input type (what a client sends,
 * e.g. `limit` as the query string it is), answers by their output type. Actions with no JSON
 * Schema form (`trim`, `transform`) are left out; `check` rules are kept as descriptions.
 * Definitions of recursive (`lazy`) schemas are moved into `components.schemas` as
 * `<prefix>_<id>`, because a `#/$defs/…` pointer inside a component would not resolve.
 */
export function schemaOf(
  schema: RouteDef['body'],
  typeMode: 'input' | 'output',
  hoist?: { prefix: string; into: Record<string, SchemaObject> },
): JsonSchema {
  if (!schema) return {};
  const componentName = (id: string) => `${hoist?.prefix ?? 'Def'}_${id.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  const config: ConversionConfig = {
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'ignore',
    overrideAction: ({ valibotAction, jsonSchema }) => {
      if (valibotAction.type !== 'check') return undefined;
      const message = (valibotAction as { message?: unknown }).message;
      if (typeof message !== 'string') return undefined;
      const description = jsonSchema.description ? `${jsonSchema.description} ${message}.` : `${message}.`;
      return { ...jsonSchema, description };
    },
    ...(hoist
      ? { overrideRef: ({ referenceId }) => `#/components/schemas/${componentName(referenceId)}` }
      : {}),
  };
  const {
    $schema: _dialect,
    $defs,
    ...json
  } = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0], config);
  if ($defs && hoist) {
    for (const [id, def] of Object.entries($defs))
      hoist.into[componentName(id)] = typeof def === 'boolean' ? (def ? {} : { not: {} }) : def;
  } else if ($defs) {
    return { ...json, $defs };
  }
  return json;
}

function pascal(id: string): string {
  return id.charAt(0).toUpperCase() + id.slice(1);
}

/** API Gateway's greedy `{proxy+}` is `{proxy}` in OpenAPI; every other segment is the same. */
export function openApiPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\+\}/g, '{$1}');
}

function pathParamNames(path: string): string[] {
  return [...openApiPath(path).matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1] as string);
}

function propertiesOf(json: JsonSchema): { props: Record<string, SchemaObject>; required: Set<string> } {
  const props: Record<string, SchemaObject> = {};
  for (const [name, prop] of Object.entries(json.properties ?? {})) {
    props[name] = typeof prop === 'boolean' ? {} : prop;
  }
  return { props, required: new Set(json.required ?? []) };
}

function parametersOf(def: RouteDef, schemas: Record<string, SchemaObject>): ParameterObject[] {
  const params: ParameterObject[] = [];
  const hoist = (part: string) => ({ prefix: `${pascal(def.id)}${part}`, into: schemas });
  const path = propertiesOf(schemaOf(def.params, 'input', hoist('Path')));
  for (const name of pathParamNames(def.path)) {
    params.push({ name, in: 'path', required: true, schema: path.props[name] ?? { type: 'string' } });
  }
  const query = propertiesOf(schemaOf(def.query, 'input', hoist('Query')));
  for (const [name, schema] of Object.entries(query.props)) {
    params.push({ name, in: 'query', required: query.required.has(name), schema });
  }
  if (def.method === 'POST') {
    params.push({
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
        pattern: IDEMPOTENCY_KEY_PATTERN.source,
      },
      description:
        'Makes a retry safe: a repeat with the same key (per principal, 24 h) gets the first answer; the same key with another body is a 422',
    });
  }
  return params;
}

const json = (schema: SchemaObject): Record<string, MediaType> => ({ [JSON_MEDIA]: { schema } });

/**
 * Every status a route can answer besides its success status: those its shape implies, plus the
 * route's own `statuses`.
 * - 400 with a body, query or path to validate; 401 always (the route verifies the credential);
 * - 403 on admin routes and on every non-GET route (a per-record right, team membership, scope
 *   access); 404 with a path parameter (unknown, or another organisation's);
 * - 409 on a non-GET route with a path parameter (archived record, stale version, state conflict);
 * - 413 always (the body size limit holds on every route); 415 with a body;
 * - on POST, 400, 409 and 422 of the `Idempotency-Key` (a bad key; the key's first request still
 *   running; the key sent with another request: shared/http/idempotency.ts);
 * - 429 (the stage's throttling), 500 (unexpected), 503 (a dependency down) always.
 */
export function statusesOf(def: RouteDef): number[] {
  const hasPath = pathParamNames(def.path).length > 0;
  const statuses = new Set<number>([401, 413, 429, 500, 503, ...(def.statuses ?? [])]);
  if (def.body || def.query || def.params || hasPath) statuses.add(400);
  if (def.auth === 'admin' || def.method !== 'GET') statuses.add(403);
  if (hasPath) statuses.add(404);
  if (hasPath && def.method !== 'GET') statuses.add(409);
  if (def.body) statuses.add(415);
  if (def.method === 'POST') for (const s of [400, 409, 422]) statuses.add(s);
  return [...statuses].sort((a, b) => a - b);
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'Missing, malformed, expired, unknown or revoked credential: always `{error: "Unauthorized"}`, whatever the cause',
  403: 'Not allowed: `{error: "FORBIDDEN"}` (not an org admin, or no right on this record) or a more precise code',
  404: 'Not found, or owned by another organisation',
  409: 'Conflict with the stored state: an archived record, a stale `If-Match`/`version` (`VERSION_CONFLICT`), a name already taken, or the `Idempotency-Key` of a request still running (`IDEMPOTENCY_KEY_IN_USE`)',
  413: 'Body over the size limit (1 MiB); over 10 MiB the gateway answers `{message}` itself',
  415: 'Unsupported body media type',
  422: 'Well-formed but not processable, or an `Idempotency-Key` already used with another request (`IDEMPOTENCY_KEY_REUSED`)',
  429: 'Throttled by the API stage (the gateway answers `{message}`)',
  500: 'Unexpected failure: `{error: "INTERNAL_SERVER_ERROR"}`, no detail',
  503: 'A dependency is unavailable: retry later',
};

function responsesOf(def: RouteDef, schemas: Record<string, SchemaObject>): Record<string, ResponseObject> {
  const style = def.validation ?? 'plain';
  const success = String(def.successStatus ?? 200);
  const responses: Record<string, ResponseObject> = {};
  if (def.response) {
    const name = `${pascal(def.id)}Response`;
    schemas[name] = schemaOf(def.response, 'output', { prefix: name, into: schemas });
    responses[success] = { description: 'Success', content: json(ref(name)) };
  } else if (def.responseContentType) {
    responses[success] = {
      description: 'Success',
      content: { [def.responseContentType]: { schema: { type: 'string' } } },
    };
  } else {
    responses[success] = { description: 'Success', content: json({}) };
  }
  for (const status of statusesOf(def)) {
    if (status === 201) {
      responses['201'] = { ...(responses[success] as ResponseObject), description: 'Created' };
      continue;
    }
    if (status === 202) {
      responses['202'] = {
        description: 'Accepted: the work is queued; poll what the body names',
        content: json({}),
      };
      continue;
    }
    if (status === 400) {
      // A body that fails its schema gets the route's shape; malformed JSON, a missing body and
      // bad query or path values get the plain `{error}`, except on a `publish` route, where every
      // 400 has the route's shape.
      const badRequest =
        style === 'publish'
          ? ref(STYLE_SCHEMA[style])
          : def.body && style !== 'plain'
            ? { anyOf: [ref(STYLE_SCHEMA[style]), ref('Error')] }
            : ref('Error');
      responses['400'] = { description: 'Invalid request', content: json(badRequest) };
      continue;
    }
    const gateway = status === 413 || status === 429 || status === 503;
    responses[String(status)] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Failure: `{error}`',
      content: json(gateway ? { anyOf: [ref('Error'), ref('GatewayError')] } : ref('Error')),
    };
  }
  return responses;
}

/** Builds the OpenAPI 3.1 document of `routes` (normally the manifest of `shared/routes.ts`). */
export function buildOpenApi(routes: readonly RouteDef[], options: BuildOptions = {}): OpenApiDocument {
  const schemas: Record<string, SchemaObject> = { ...ERROR_SCHEMAS };
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const def of routes) {
    tags.add(def.tag);
    const parameters = parametersOf(def, schemas);
    let requestBody: OperationObject['requestBody'];
    if (def.body) {
      const name = `${pascal(def.id)}Request`;
      schemas[name] = schemaOf(def.body, 'input', { prefix: name, into: schemas });
      // One entry per accepted media type (JSON unless the route lists others), all documenting
      // the same schema: a YAML body, for instance, has the data model of its JSON form.
      const media = def.bodyContentTypes?.length ? def.bodyContentTypes : [JSON_MEDIA];
      requestBody = {
        required: true,
        content: Object.fromEntries(media.map((type) => [type, { schema: ref(name) }])),
      };
    }
    const operation: OperationObject = {
      operationId: def.id,
      summary: def.summary,
      tags: [def.tag],
      ...(def.auth === 'admin'
        ? { description: 'Org admins and organisation principals (`org_` API keys) only.' }
        : {}),
      'x-auth-mode': def.auth,
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: responsesOf(def, schemas),
    };
    const path = openApiPath(def.path);
    const item = paths[path] ?? {};
    const method = def.method.toLowerCase() as Lowercase<HttpMethod>;
    if (item[method]) throw new Error(`Route ${def.method} ${def.path} is declared twice`);
    item[method] = operation;
    paths[path] = item;
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: DIALECT,
    info: {
      title: 'Cost management service',
      version: '1.0',
      description:
        'Cloud-cost analytics (FinOps) API. Every endpoint takes `Authorization: Bearer <credential>`: a session JWT of the identity provider or an `ak_` API key. Generated from the route manifest (`shared/routes.ts`).',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [...tags].sort().map((name) => ({ name })),
    security: SECURITY,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A session JWT of the identity provider (locally: `npm run token`).',
        },
        apiKeyAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'ak_ API key',
          description:
            'An API key (`ak_…`) of a user or organisation principal, sent as `Authorization: Bearer ak_…` (`npm run keys`).',
        },
      },
      schemas,
    },
  };
}
