import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashApiKey, isWellFormedApiKey } from '../../shared/auth/api-key-format';
import { ensureOrganization } from '../../shared/db/organizations-repo';
import { findApiKeyByHash } from '../../shared/db/principals-repo';
import { addTeamMember, ensureTeam } from '../../shared/db/teams-repo';
import { ensureUser } from '../../shared/db/users-repo';
import { createApiKey } from '../../shared/domain/apikeys/mint';

/**
 * The demo data of `npm start`: `org_demo` with an admin, a member and a team that only the admin
 * is in, and a second organisation with its own admin. API keys are minted once; their raw values
 * are kept in the local state folder (never in the table) so they survive restarts.
 */
export interface DemoSeed {
  orgId: string;
  otherOrgId: string;
  users: { admin: string; member: string; outsider: string };
  emails: { admin: string; member: string; outsider: string };
  teams: { id: string; name: string }[];
  apiKeys: { admin: string; member: string; org: string; outsider: string };
}

const ORG = 'org_demo';
const OTHER_ORG = 'org_acme';

export async function seedDemo(stateDir: string): Promise<DemoSeed> {
  const createdAt = new Date().toISOString();
  const users = { admin: 'user_demo_admin', member: 'user_demo_member', outsider: 'user_acme_admin' };
  const emails = {
    admin: 'admin@demo.example',
    member: 'member@demo.example',
    outsider: 'admin@acme.example',
  };
  const team = { id: 'team_platform', name: 'Platform' };

  await ensureOrganization({ id: ORG, name: 'Demo Org', timezone: 'UTC', createdAt });
  await ensureOrganization({ id: OTHER_ORG, name: 'Acme (second org)', timezone: 'UTC', createdAt });
  await ensureUser({
    id: users.admin,
    organizationId: ORG,
    email: emails.admin,
    name: 'Demo Admin',
    role: 'admin',
    createdAt,
  });
  await ensureUser({
    id: users.member,
    organizationId: ORG,
    email: emails.member,
    name: 'Demo Member',
    role: 'member',
    createdAt,
  });
  await ensureUser({
    id: users.outsider,
    organizationId: OTHER_ORG,
    email: emails.outsider,
    name: 'Acme Admin',
    role: 'admin',
    createdAt,
  });
  if (await ensureTeam({ ...team, organizationId: ORG, createdAt })) {
    await addTeamMember(ORG, team.id, users.admin, emails.admin);
  }

  const keysFile = join(stateDir, 'demo-keys.json');
  let stored: DemoSeed['apiKeys'] | undefined;
  if (existsSync(keysFile)) stored = JSON.parse(readFileSync(keysFile, 'utf8')) as DemoSeed['apiKeys'];
  const stillValid = async (key: string | undefined) =>
    Boolean(key && isWellFormedApiKey(key) && (await findApiKeyByHash(hashApiKey(key)))?.revokedAt === null);
  const apiKeys = {
    admin:
      stored && (await stillValid(stored.admin))
        ? stored.admin
        : (await createApiKey(ORG, users.admin, 'user', 'demo admin', users.admin)).key,
    member:
      stored && (await stillValid(stored.member))
        ? stored.member
        : (await createApiKey(ORG, users.member, 'user', 'demo member', users.admin)).key,
    org:
      stored && (await stillValid(stored.org))
        ? stored.org
        : (await createApiKey(ORG, ORG, 'org', 'demo automation', users.admin)).key,
    outsider:
      stored && (await stillValid(stored.outsider))
        ? stored.outsider
        : (await createApiKey(OTHER_ORG, users.outsider, 'user', 'acme admin', users.outsider)).key,
  };
  writeFileSync(keysFile, JSON.stringify(apiKeys, null, 2), { mode: 0o600 });
  return { orgId: ORG, otherOrgId: OTHER_ORG, users, emails, teams: [team], apiKeys };
}
