import * as v from 'valibot';
import { ConflictError, NotFoundError, ShapedError, ValidationError } from '../../../shared/errors';
import { errorToResult } from '../../../shared/http/middlewares';
import { toFieldIssues, validationFailure } from '../../../shared/validation';

const route = { id: 'test' };

describe('error mapping', () => {
  it('maps typed errors to their status and body', () => {
    expect(errorToResult(new NotFoundError(), route)).toEqual({
      statusCode: 404,
      body: { error: 'NOT_FOUND' },
    });
    expect(errorToResult(new ConflictError('VERSION_CONFLICT'), route)).toEqual({
      statusCode: 409,
      body: { error: 'VERSION_CONFLICT' },
    });
    expect(errorToResult(new ShapedError(409, { error: 'REPORT_ARCHIVED' }), route)).toEqual({
      statusCode: 409,
      body: { error: 'REPORT_ARCHIVED' },
    });
    expect(
      errorToResult(new ValidationError('name: too short', [{ path: 'name', message: 'too short' }]), route),
    ).toEqual({
      statusCode: 400,
      body: {
        error: 'VALIDATION_ERROR',
        reason: 'name: too short',
        details: [{ path: 'name', message: 'too short' }],
      },
    });
  });

  it('answers an unknown failure with a bare 500 that leaks nothing', () => {
    const secret = new Error('connection string postgres://user:hunter2@db');
    const result = errorToResult(secret, route);
    expect(result).toEqual({ statusCode: 500, body: { error: 'INTERNAL_SERVER_ERROR' } });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(JSON.stringify(result)).not.toContain('at ');
  });

  it('answers 503 when a dependency is unreachable, also when the cause is nested', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
    expect(errorToResult(refused, route)).toEqual({
      statusCode: 503,
      body: { error: 'SERVICE_UNAVAILABLE' },
    });
    const wrapped = new Error('request failed', { cause: refused });
    expect(errorToResult(wrapped, route).statusCode).toBe(503);
    const aggregate = Object.assign(new Error('AggregateError'), { errors: [refused] });
    expect(errorToResult(aggregate, route).statusCode).toBe(503);
  });

  it('turns the JSON parser errors into 400 (malformed) and 415 (wrong media type)', () => {
    const malformed = Object.assign(new Error('Invalid or malformed JSON was provided'), { statusCode: 415 });
    expect(errorToResult(malformed, route)).toEqual({
      statusCode: 400,
      body: { error: 'Malformed JSON body' },
    });
    const media = Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 });
    expect(errorToResult(media, route).statusCode).toBe(415);
  });
});

describe('validation failure shapes', () => {
  const issues = [{ path: 'members.0.email', message: 'Invalid email' }];
  it('plain: {error} naming the path', () => {
    expect(validationFailure('plain', 'body', issues).body()).toEqual({
      error: 'Invalid body: members.0.email: Invalid email',
    });
  });
  it('detailed: {error, details, reason}', () => {
    expect(validationFailure('detailed', 'body', issues).body()).toEqual({
      error: 'VALIDATION_ERROR',
      reason: 'members.0.email: Invalid email',
      details: issues,
    });
  });
  it('sync: {error, reason, details, summary}', () => {
    expect(Object.keys(validationFailure('sync', 'body', issues).body()).sort()).toEqual([
      'details',
      'error',
      'reason',
      'summary',
    ]);
  });
  it('publish: {ok:false, errors:[{kind, message}]}', () => {
    expect(validationFailure('publish', 'body', issues).body()).toEqual({
      ok: false,
      errors: [{ kind: 'request', message: 'members.0.email: Invalid email' }],
    });
  });
});

describe('validation wording', () => {
  it('names a query or path field once: "Invalid query: limit: …"', () => {
    const issues = [{ path: 'limit', message: 'must be 1 to 100' }];
    expect(validationFailure('plain', 'query', issues).body()).toEqual({
      error: 'Invalid query: limit: must be 1 to 100',
    });
    expect(validationFailure('plain', 'path', [{ path: 'id', message: 'bad' }]).body()).toEqual({
      error: 'Invalid path: id: bad',
    });
  });

  it('says "is required" and "is not an accepted field" instead of valibot\'s "Invalid key" wording', () => {
    const schema = v.strictObject({ name: v.string(), nested: v.strictObject({ a: v.string() }) });
    const result = v.safeParse(schema, { nested: { a: 'x', b: 1 }, extra: true });
    expect(result.success).toBe(false);
    const issues = toFieldIssues(result.issues ?? []);
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'name', message: 'is required' },
        { path: 'nested.b', message: 'is not an accepted field' },
        { path: 'extra', message: 'is not an accepted field' },
      ]),
    );
    // A custom message is kept as written.
    const custom = v.safeParse(v.object({ n: v.pipe(v.number(), v.minValue(1, 'too small')) }), { n: 0 });
    expect(toFieldIssues(custom.issues ?? [])).toEqual([{ path: 'n', message: 'too small' }]);
  });
});
