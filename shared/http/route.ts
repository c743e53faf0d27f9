import type * as v from 'valibot';
import type { ValidationStyle } from '../validation';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route. `member`: any authenticated principal of the organisation (finer,
 * per-record rules live in the domain). `admin`: org admins and `org_` principals.
 */
export type AuthMode = 'member' | 'admin';

// biome-ignore lint/suspicious/noExplicitAny: schemas of any input/output type are accepted here
type AnySchema = v.GenericSchema<any, any>;

export interface RouteDef<
  B extends AnySchema | undefined = AnySchema | undefined,
  Q extends AnySchema | undefined = AnySchema | undefined,
  P extends AnySchema | undefined = AnySchema | undefined,
> {
  /** Unique id; also the CDK construct id and the OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** API Gateway path syntax: `/reports/{id}`. */
  path: string;
  /** Entry module under `functions/http/`, without extension: `reports/get-report`. */
  entry: string;
  auth: AuthMode;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  /** The shape of this route's 400 answers (see `ValidationStyle`); `plain` unless stated. */
  validation?: ValidationStyle;
  /** Schema of the success body, for the OpenAPI document only (never used to check answers). */
  response?: AnySchema;
  /**
   * The media type of a success answer that is not JSON (e.g. `text/csv`): the function answers a
   * string with that `content-type` header, sent as it is, and OpenAPI documents a string body.
   */
  responseContentType?: string;
  /**
   * The body schema documents the route, but the domain validates it itself, after checks that
   * the spec orders first (e.g. a PATCH of an archived report is a 409 whatever the body).
   * The handler then receives the parsed JSON as `body`, unvalidated.
   */
  deferBodyValidation?: boolean;
  /**
   * With `deferBodyValidation`: the body's presence, media type and JSON are checked by the
   * function too (`readDeferredBody`, which answers them as the route's 400/415 would), so checks
   * the spec orders before any look at the body answer even for a missing or malformed one (a
   * PATCH of an archived report is a 409 whatever the body). The size limit (413) still comes first.
   */
  deferBodyParsing?: boolean;
  /**
   * The media types the body may be sent as, when not only JSON (default: `application/json`,
   * which also admits `application/*+json`). Each is documented in OpenAPI with the `body` schema.
   * A listed JSON type is parsed as usual; a listed non-JSON type (e.g. `application/yaml`)
   * skips the JSON parser and reaches the function as text (`body` is the string, base64-decoded
   * when API Gateway encoded it), so such a route sets `deferBodyValidation` and decodes and
   * validates the body itself. Any other type is a 415.
   */
  bodyContentTypes?: readonly string[];
  /**
   * Statuses this route can answer beyond those its shape implies (`statusesOf` in
   * infra/openapi.ts: 400, 401, 403 for admin and non-GET routes, 404 with a path, 409 for a
   * non-GET route with a path, 413, 415 with a body, 429, 500, 503), e.g. 201 for a PUT that
   * creates, 202 when large work is queued or a 409 for a name already taken. The OpenAPI document declares exactly these, and the
   * e2e client fails on any answer whose status the document does not declare (test/support/contract.ts).
   */
  statuses?: readonly (201 | 202 | 403 | 409 | 422)[];
  /** Status of a successful answer (200 unless stated). */
  successStatus?: number;
  /** Memory and timeout overrides for heavy routes. */
  memoryMb?: number;
  timeoutSeconds?: number;
  /** Extra IAM needs beyond the table: queues it sends to, whether it reads the warehouse. */
  sendsTo?: string[];
  usesWarehouse?: boolean;
  /**
   * Calls the identity provider's invitation API (team sync): in AWS it gets `IDP_API_BASE_URL`
   * and read access to the IdP token secret (`IDP_API_TOKEN_SECRET_ARN`), when those are deployed.
   */
  invitesUsers?: boolean;
}

/** Declares a route. An identity function, marked pure so each Lambda bundle keeps only its own route. */
/* @__NO_SIDE_EFFECTS__ */
export function route<
  B extends AnySchema | undefined,
  Q extends AnySchema | undefined,
  P extends AnySchema | undefined,
>(def: RouteDef<B, Q, P>): RouteDef<B, Q, P> {
  return def;
}

/** The validated type of a route part; `body`, `query` and `params` are present when declared. */
export type Infer<S> = [Exclude<S, undefined>] extends [never]
  ? undefined
  : Exclude<S, undefined> extends AnySchema
    ? v.InferOutput<Exclude<S, undefined>>
    : undefined;
