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

/**
 * The suite's fresh organisation `org_<slug><run>` with its admin `user_<slug><run>`, made by a
 * beforeAll hook registered here (call it at the top of a test file, before the file's own hooks);
 * `key` is the admin's API key once that hook has run.
 */
export function freshOrgForSuite(slug: string, label: string): { id: string; run: string; key: string } {
  const run = Date.now().toString(36);
  const org = { id: `org_${slug}${run}`, run, key: '' };
  beforeAll(async () => {
    org.key = await freshOrg(org.id, `user_${slug}${run}`, `${label} ${run}`);
  }, 120_000);
  return org;
}
