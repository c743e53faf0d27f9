/**
 * The `Idempotency-Key` header's rules, shared by the middleware (./idempotency.ts) and the
 * OpenAPI document (no storage here, so the document's bundle stays small).
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Printable ASCII, without leading or trailing space. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
