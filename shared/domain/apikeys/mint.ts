import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../auth/api-key-format';
import { type CreatedApiKey, storeNewApiKey } from '../../db/api-keys-repo';

/**
 * Mints an API key (the format and hash are the auth rules', shared/auth/api-key-format.ts) and
 * stores only its hash. The key itself is in the answer, once.
 */
export async function createApiKey(
  orgId: string,
  principalId: string,
  kind: 'user' | 'org',
  name: string,
  createdById: string,
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  return storeNewApiKey(orgId, principalId, kind, name, createdById, {
    key,
    prefix: apiKeyPrefix(key),
    hash: hashApiKey(key),
  });
}
