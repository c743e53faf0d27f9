/**
 * Typed errors. Domain code throws these; the HTTP error middleware turns them into the
 * spec's bodies. Anything that is not an AppError becomes a 500 `{error}` with no detail.
 */
export type ErrorBody = Record<string, unknown> & ({ error: string } | { ok: false; errors: unknown[] });

export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract body(): ErrorBody;
}

export interface FieldIssue {
  path: string;
  message: string;
}

/** 400 with `{error: 'VALIDATION_ERROR', reason, details}` where the route uses the detailed shape. */
export class ValidationError extends AppError {
  override name = 'ValidationError';
  readonly status = 400;
  constructor(
    readonly reason: string,
    readonly details: FieldIssue[] = [],
    options?: ErrorOptions,
  ) {
    super(reason, options);
  }
  body(): ErrorBody {
    return { error: 'VALIDATION_ERROR', reason: this.reason, details: this.details };
  }
}

/** 400 `{error: message}`: the plain shape used by every route without a richer one. */
export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  readonly status = 400;
  body(): ErrorBody {
    return { error: this.message };
  }
}

export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  readonly status = 401;
  constructor() {
    super('Unauthorized');
  }
  body(): ErrorBody {
    return { error: 'Unauthorized' };
  }
}

export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  readonly status = 403;
  constructor(message = 'FORBIDDEN') {
    super(message);
  }
  body(): ErrorBody {
    return { error: this.message };
  }
}

export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  readonly status = 404;
  constructor(message = 'NOT_FOUND') {
    super(message);
  }
  body(): ErrorBody {
    return { error: this.message };
  }
}

export class ConflictError extends AppError {
  override name = 'ConflictError';
  readonly status = 409;
  constructor(message = 'CONFLICT') {
    super(message);
  }
  body(): ErrorBody {
    return { error: this.message };
  }
}

export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  readonly status = 413;
  constructor(message = 'PAYLOAD_TOO_LARGE') {
    super(message);
  }
  body(): ErrorBody {
    return { error: this.message };
  }
}

export class UnprocessableError extends AppError {
  override name = 'UnprocessableError';
  readonly status = 422;
  body(): ErrorBody {
    return { error: this.message };
  }
}

/** A dependency (DynamoDB, SQS, the warehouse) is unreachable: 503 so clients retry. */
export class DependencyUnavailableError extends AppError {
  override name = 'DependencyUnavailableError';
  readonly status = 503;
  constructor(message = 'SERVICE_UNAVAILABLE', options?: ErrorOptions) {
    super(message, options);
  }
  body(): ErrorBody {
    return { error: this.message };
  }
}

/** Any error with a fixed status and body, for the few routes whose error shape is unique. */
export class ShapedError extends AppError {
  override name = 'ShapedError';
  constructor(
    readonly status: number,
    private readonly shape: ErrorBody,
    options?: ErrorOptions,
  ) {
    super(String((shape as { error?: unknown }).error ?? 'error'), options);
  }
  body(): ErrorBody {
    return this.shape;
  }
}
