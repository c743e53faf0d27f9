import { ensureOrganization } from '../../shared/db/organizations-repo';
import { ensureUser } from '../../shared/db/users-repo';
import { createApiKey } from '../../shared/domain/apikeys/mint';

/**
 * A fresh organisation on the running local stack with one admin and an API key of theirs (the
 * billing ingest ignores uploads for organisations that do not exist).
 */
export async function freshOrg(orgId: string, userId: string, label: string): Promise<string> {
  const createdAt = new Date().toISOString();
  await ensureOrganization({ id: orgId, name: label, timezone: 'UTC', createdAt });
  await ensureUser({
    id: userId,
    organizationId: orgId,
    email: `${userId}@example.com`,
    name: label,
    role: 'admin',
    createdAt,
  });
  return (await createApiKey(orgId, userId, 'user', label, userId)).key;
}
