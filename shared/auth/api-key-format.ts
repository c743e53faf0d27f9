import { createHash, randomBytes } from 'node:crypto';

/**
 * API key format: `ak_` + 32 random base62 characters + 6 base62 checksum characters.
 * The checksum (from SHA-256 of the body) lets secret scanners and the credential check reject a
 * mistyped or made-up key without a database read; only the SHA-256 hash of a key is stored.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^ak_[0-9A-Za-z]{${BODY_LENGTH + CHECK_LENGTH}}$`);

function toBase62(bytes: Uint8Array, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i++) out += ALPHABET[(bytes[i % bytes.length] ?? 0) % 62];
  return out;
}

function checksum(body: string): string {
  return toBase62(createHash('sha256').update(`ak_${body}`).digest(), CHECK_LENGTH);
}

export function generateApiKey(): string {
  // Rejection sampling keeps the base62 characters uniform.
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return `ak_${body}${checksum(body)}`;
}

export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(3, 3 + BODY_LENGTH);
  return checksum(body) === key.slice(3 + BODY_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The part of a key that is safe to show in lists: `ak_` and the first 6 body characters. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 9);
}
