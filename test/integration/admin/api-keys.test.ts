import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../../../shared/auth/api-key-format';
import type { Principal } from '../../../shared/auth/principal';
import {
  findOrgKey,
  LAST_USED_RESOLUTION_MS,
  listPrincipalKeys,
  recordApiKeyUse,
} from '../../../shared/db/api-keys-repo';
import { db, tableName } from '../../../shared/db/client';
import { keys } from '../../../shared/db/keys';
import { registerOrganization } from '../../../shared/db/organizations-repo';
import { findApiKeyByHash } from '../../../shared/db/principals-repo';
import { ensureUser, getUser } from '../../../shared/db/users-repo';
import { createKey, listKeys, revokeKey } from '../../../shared/domain/apikeys/service';
import { UnauthorizedError } from '../../../shared/errors';
import { authenticate, loadPrincipal } from '../../../shared/http/identity';
import { adminOf, memberOf } from '../../support/principals';

const run = Math.random().toString(36).slice(2, 8);
const org = `org_keys${run}`;
const member = memberOf(org, [], 'user_m');
const admin = adminOf(org, 'user_a');

beforeAll(async () => {
  const createdAt = new Date().toISOString();
  await ensureUser({
    id: 'user_m',
    organizationId: org,
    email: 'm@k.io',
    name: 'm',
    role: 'member',
    createdAt,
  });
  await ensureUser({
    id: 'user_a',
    organizationId: org,
    email: 'a@k.io',
    name: 'a',
    role: 'admin',
    createdAt,
  });
});

describe('API keys against DynamoDB Local', () => {
  it('creates a usable key, stores only its hash and lists it without key or hash', async () => {
    const created = await createKey(member, { name: 'ci' });
    expect(created.key).toMatch(/^ak_[0-9A-Za-z]{38}$/);
    const auth = await authenticate(`Bearer ${created.key}`);
    expect(auth).toMatchObject({ orgId: org, principalId: 'user_m', keyId: created.id });

    const mirror = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.principalKey(org, 'user_m', created.id) }),
    );
    expect(JSON.stringify(mirror.Item)).not.toContain(created.key);
    expect(mirror.Item?.hash).toBe(hashApiKey(created.key));

    const listed = await listKeys(member, { limit: 25, mine: false });
    const row = listed.items.find((k) => k.id === created.id);
    expect(row).toMatchObject({ name: 'ci', prefix: created.key.slice(0, 9), revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(JSON.stringify(listed)).not.toContain(hashApiKey(created.key));
  });

  it('records lastUsedAt on first use and at most once per hour afterwards', async () => {
    const created = await createKey(member, { name: 'usage' });
    const hash = hashApiKey(created.key);
    await authenticate(`Bearer ${created.key}`);
    const first = (await findApiKeyByHash(hash))?.lastUsedAt;
    expect(first).toEqual(expect.any(String));
    const mirrorUse = (await listPrincipalKeys(org, 'user_m')).find((k) => k.id === created.id)?.lastUsedAt;
    expect(mirrorUse).toBe(first);

    const lookup = (await findApiKeyByHash(hash))!;
    const soon = new Date(Date.parse(first!) + 60_000);
    expect(await recordApiKeyUse(hash, lookup, soon)).toBe(false);
    const later = new Date(Date.parse(first!) + LAST_USED_RESOLUTION_MS + 1);
    expect(await recordApiKeyUse(hash, lookup, later)).toBe(true);
    expect((await findApiKeyByHash(hash))?.lastUsedAt).toBe(later.toISOString());
    // a concurrent request holding the stale lookup does not write again
    expect(await recordApiKeyUse(hash, lookup, later)).toBe(false);
  });

  it('revocation marks both items in one go: the key lookup and the per-request check refuse the key', async () => {
    const created = await createKey(member, { name: 'to revoke' });
    const auth = await authenticate(`Bearer ${created.key}`);
    const revoked = await revokeKey(member, created.id);
    expect(revoked.revokedAt).toEqual(expect.any(String));
    expect((await findApiKeyByHash(hashApiKey(created.key)))?.revokedAt).toBe(revoked.revokedAt);
    // a container that cached the key's identity before the revocation still refuses the request:
    // loadPrincipal reads the revocation on every request
    await expect(loadPrincipal(await authenticate(`Bearer ${created.key}`))).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await expect(loadPrincipal(auth)).rejects.toBeInstanceOf(UnauthorizedError);
    // idempotent
    expect((await revokeKey(member, created.id)).revokedAt).toBe(revoked.revokedAt);
  });

  it('members revoke only their own keys; admins any key of the org, found by id', async () => {
    const created = await createKey(member, { name: 'owned' });
    await expect(revokeKey({ ...member, principalId: 'user_a' }, created.id)).rejects.toMatchObject({
      status: 404,
    });
    expect((await findOrgKey(org, created.id))?.principalId).toBe('user_m');
    expect((await revokeKey(admin, created.id)).revokedAt).toEqual(expect.any(String));
  });

  it('org keys are for admins only and act as the organisation principal', async () => {
    await expect(createKey(member, { name: 'x', kind: 'org' })).rejects.toMatchObject({ status: 403 });
    const orgKey = await createKey(admin, { name: 'automation', kind: 'org' });
    expect(orgKey).toMatchObject({ kind: 'org', principalId: org });
    const p = await loadPrincipal(await authenticate(`Bearer ${orgKey.key}`));
    expect(p).toMatchObject({ kind: 'org', role: 'admin', principalId: org });
  });

  it('a signed-in user without a stored profile gets one with the session role, then the key', async () => {
    await registerOrganization({
      id: org,
      name: org,
      timezone: 'UTC',
      createdAt: new Date().toISOString(),
      registeredVia: 'jwt',
      registeredBy: 'user_a',
    });
    const ghost: Principal = { ...admin, principalId: 'user_ghost' };
    const created = await createKey(ghost, { name: 'x' });
    expect(created).toMatchObject({ kind: 'user', principalId: 'user_ghost' });
    expect(await getUser(org, 'user_ghost')).toMatchObject({ role: 'admin', email: '', name: '' });
    const p = await loadPrincipal(await authenticate(`Bearer ${created.key}`));
    expect(p).toMatchObject({ kind: 'user', role: 'admin', principalId: 'user_ghost' });
  });

  it('an organisation nobody registered gets no user keys and no profile', async () => {
    const stranger: Principal = { ...member, orgId: `org_nokeys${run}`, principalId: 'user_ghost' };
    await expect(createKey(stranger, { name: 'x' })).rejects.toMatchObject({
      status: 409,
      message: 'ORGANIZATION_NOT_REGISTERED',
    });
    expect(await getUser(stranger.orgId, 'user_ghost')).toBeUndefined();
  });
});
