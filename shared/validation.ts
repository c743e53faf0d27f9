import * as v from 'valibot';
import { type AppError, BadRequestError, type FieldIssue, ShapedError, ValidationError } from './errors';

/**
 * Turning valibot issues into the spec's 400 bodies. Neutral ground: the HTTP middleware validates
 * request parts with it, and the domain uses it for the bodies it validates itself (after checks
 * the spec orders first), so both answer in the same shapes.
 */

/**
 * How a request that fails validation is answered, keeping the spec's body shapes:
 * - `plain`: 400 `{error}` naming the failing field path;
 * - `detailed`: 400 `{error: 'VALIDATION_ERROR', details, reason}` (reports);
 * - `sync`: 400 `{error, reason, details, summary}` (team sync);
 * - `publish`: 400 `{ok: false, errors: [{kind, message}]}` (dimension publish): every 400 of such a
 *   route, a missing or malformed body included (`requestRejection`).
 */
export type ValidationStyle = 'plain' | 'detailed' | 'sync' | 'publish';

// biome-ignore lint/suspicious/noExplicitAny: any schema
type AnySchema = v.GenericSchema<any, any>;

/**
 * valibot's generic wording for the two commonest mistakes, said in the API's terms: a missing
 * required field ("Invalid key: Expected \"name\" but received undefined") and a field that a strict
 * object does not accept ("Invalid key: Expected never but received \"id\""). Custom messages and
 * every other issue keep their text.
 */
function messageOf(issue: v.BaseIssue<unknown>): string {
  if (issue.kind === 'schema' && /^Invalid key: /.test(issue.message)) {
    if (issue.expected === 'never') return 'is not an accepted field';
    if (issue.received === 'undefined') return 'is required';
  }
  return issue.message;
}

/** Flattens valibot issues into `{path, message}` with dotted paths such as `widgets.0.type`. */
export function toFieldIssues(issues: readonly v.BaseIssue<unknown>[]): FieldIssue[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue) ?? '';
    return { path: path || '(body)', message: messageOf(issue) };
  });
}

/** Builds the error a route answers with when `where` (body, query, path) fails its schema. */
export function validationFailure(style: ValidationStyle, where: string, issues: FieldIssue[]): AppError {
  const first = issues[0];
  const reason = first
    ? `${where === 'body' ? '' : `${where} `}${first.path}: ${first.message}`
    : `invalid ${where}`;
  switch (style) {
    case 'detailed':
      return new ValidationError(reason, issues);
    case 'sync':
      return new ShapedError(400, {
        error: 'VALIDATION_ERROR',
        reason,
        details: issues,
        summary: { added: 0, removed: 0, invited: 0 },
      });
    case 'publish':
      return new ShapedError(400, {
        ok: false,
        errors: issues.map((i) => ({ kind: 'request', message: `${i.path}: ${i.message}` })),
      });
    default:
      // `Invalid query: limit: …`, without repeating where in the reason.
      return new BadRequestError(
        first ? `Invalid ${where}: ${first.path}: ${first.message}` : `Invalid ${where}`,
      );
  }
}

/**
 * The 400 of a request refused as a whole, before any field is looked at (no body, malformed
 * JSON): the spec's `{ok: false, errors}` for the `publish` style, `{error: message}` otherwise.
 */
export function requestRejection(style: ValidationStyle, message: string): AppError {
  if (style === 'publish') return new ShapedError(400, { ok: false, errors: [{ kind: 'request', message }] });
  return new BadRequestError(message);
}

/** Parses `input` with `schema` or throws the route's validation error. */
export function parseOrThrow<S extends AnySchema>(
  schema: S,
  input: unknown,
  style: ValidationStyle,
  where: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw validationFailure(style, where, toFieldIssues(result.issues));
}

/** Whether `zone` is an IANA time zone this runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
