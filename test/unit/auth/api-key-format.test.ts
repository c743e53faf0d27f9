import {
  apiKeyPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from '../../../shared/auth/api-key-format';

describe('API key format', () => {
  it('generates keys that carry the ak_ prefix and a valid checksum', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^ak_[0-9A-Za-z]{38}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('rejects a key with one character changed (checksum)', () => {
    const key = generateApiKey();
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    expect(isWellFormedApiKey(key.slice(0, -1) + last)).toBe(false);
    const body = key[5] === 'Z' ? 'Y' : 'Z';
    expect(isWellFormedApiKey(key.slice(0, 5) + body + key.slice(6))).toBe(false);
  });

  it('rejects wrong shapes', () => {
    for (const bad of [
      '',
      'ak_',
      'ak_short',
      `xk_${'a'.repeat(38)}`,
      `ak_${'a'.repeat(39)}`,
      `ak_${'-'.repeat(38)}`,
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it('hashes deterministically and never returns the key itself', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(3));
    expect(apiKeyPrefix(key)).toBe(key.slice(0, 9));
  });

  it('does not repeat keys', () => {
    const seen = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(seen.size).toBe(200);
  });
});
