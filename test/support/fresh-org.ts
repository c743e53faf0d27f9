import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createApiKey } from '../../shared/db/api-keys-repo';
import { ensureOrganization } from '../../shared/db/organizations-repo';
import { ensureUser } from '../../shared/db/users-repo';

const ROOT = resolve(__dirname, '..', '..');

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

/** Ingests a FOCUS file into `orgId` through `npm run ingest` (upload, worker, refresh), or throws. */
export function ingestCli(orgId: string, file: string): void {
  const out = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts/ingest.ts'),
      '--session',
      process.env.TEST_SESSION_FILE ?? '',
      '--org',
      orgId,
      '--timeout',
      '240',
      file,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' }, timeout: 270_000 },
  );
  if (out.status !== 0)
    throw new Error(`ingest failed (${out.status ?? out.signal}): ${out.stderr}${out.stdout}`);
}
