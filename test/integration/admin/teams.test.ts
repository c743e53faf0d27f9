import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../../shared/db/client';
import { keys } from '../../../shared/db/keys';
import { addTeamMember, applyMembership, ensureTeam, readMembership } from '../../../shared/db/teams-repo';
import { putUser } from '../../../shared/domain/admin/users';
import type { Invitation } from '../../../shared/domain/teams/invitations';
import { defaultSyncDeps, type SyncDeps, syncTeam } from '../../../shared/domain/teams/sync';
import { deleteTeam, readTeam } from '../../../shared/domain/teams/teams';
import { ConflictError, ShapedError } from '../../../shared/errors';
import { loadPrincipal } from '../../../shared/http/identity';
import { adminOf, recordingInvitations, seedOrg } from './support';

const run = Math.random().toString(36).slice(2, 8);
let n = 0;
const orgId = () => `org_it${run}${++n}`;

function deps(sent: Invitation[] = []): SyncDeps {
  return {
    ...defaultSyncDeps(),
    invitations: recordingInvitations(sent),
  };
}

const teamsOf = async (org: string, userId: string) =>
  (await loadPrincipal({ orgId: org, principalId: userId, kind: 'user', credential: 'jwt' })).teamIds;

describe('team sync against DynamoDB Local', () => {
  it('adds, removes and invites atomically, mirrors membership for the next request, and repeats as a no-op', async () => {
    const org = orgId();
    await seedOrg(org, 4);
    await addTeamMember(org, 'team_t', 'user_0');
    const sent: Invitation[] = [];
    const body = {
      members: [{ userId: 'user_1' }, { email: `U2@${org}.EXAMPLE` }, { email: 'stranger@example.org' }],
    };
    await syncTeam(adminOf(org), 'data platform', body, deps(sent));

    const m = await readMembership(org, 'team_t');
    expect(m.members.map((x) => x.userId).sort()).toEqual(['user_1', 'user_2']);
    expect(m.invites).toEqual([
      expect.objectContaining({ email: 'stranger@example.org', invitationId: 'inv_1' }),
    ]);
    expect(m.version).toBe(1);
    expect(await teamsOf(org, 'user_0')).toEqual([]);
    expect(await teamsOf(org, 'user_2')).toEqual(['team_t']);

    await syncTeam(adminOf(org), 'team_t', body, deps(sent));
    expect((await readMembership(org, 'team_t')).version).toBe(1);
    expect(sent).toHaveLength(1);
  });

  it('applies a change past 100 items in chunks, leaves no lock, and repeats as a no-op', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 70);
    for (const id of ids.slice(0, 10)) await addTeamMember(org, 'team_t', id);
    const body = { members: ids.slice(10).map((userId) => ({ userId })) }; // 10 removed + 60 added = 140 items
    await syncTeam(adminOf(org), 'team_t', body, deps());
    const m = await readMembership(org, 'team_t');
    expect(m.members).toHaveLength(60);
    expect(m.lock).toBeUndefined();
    expect(m.version).toBe(1);
    expect(await teamsOf(org, 'user_0')).toEqual([]);
    expect(await teamsOf(org, 'user_69')).toEqual(['team_t']);
    await syncTeam(adminOf(org), 'team_t', body, deps());
    expect((await readMembership(org, 'team_t')).version).toBe(1);
  });

  it('refuses a write planned from a stale version', async () => {
    const org = orgId();
    await seedOrg(org, 2);
    const ctx = { at: new Date().toISOString(), actorId: 'user_admin', payloadHash: 'h' };
    await applyMembership(org, 'team_t', [{ kind: 'add', userId: 'user_0' }], { version: 0 }, ctx);
    await expect(
      applyMembership(org, 'team_t', [{ kind: 'add', userId: 'user_1' }], { version: 0 }, ctx),
    ).rejects.toBeInstanceOf(ConflictError);
    expect((await readMembership(org, 'team_t')).members.map((x) => x.userId)).toEqual(['user_0']);
  });

  it("another organisation's team is not found, in the sync shape", async () => {
    const org = orgId();
    await seedOrg(org, 1);
    const other = orgId();
    const err = await syncTeam(adminOf(other), 'team_t', { members: [] }, deps()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShapedError);
    expect((err as ShapedError).status).toBe(404);
    expect((err as ShapedError).body()).toMatchObject({ error: 'NOT_FOUND', summary: { added: 0 } });
  });

  it('an ambiguous name is refused with 409', async () => {
    const org = orgId();
    await seedOrg(org, 1);
    await ensureTeam({
      id: 'team_u',
      organizationId: org,
      name: 'DATA platform',
      createdAt: new Date().toISOString(),
    });
    const err = (await syncTeam(adminOf(org), 'Data Platform', { members: [] }, deps()).catch(
      (e: unknown) => e,
    )) as ShapedError;
    expect(err.status).toBe(409);
    expect(err.body()).toMatchObject({ error: 'AMBIGUOUS_TEAM_NAME' });
    // the id still works
    await expect(syncTeam(adminOf(org), 'team_u', { members: [] }, deps())).resolves.toEqual({
      success: true,
    });
  });

  it('registering an invited e-mail turns the invitation into a membership', async () => {
    const org = orgId();
    await seedOrg(org, 1);
    await syncTeam(adminOf(org), 'team_t', { members: [{ email: 'later@example.org' }] }, deps());
    const user = await putUser(adminOf(org), 'user_later', {
      email: 'Later@example.org',
      name: 'L',
      role: 'member',
    });
    expect(user.joinedTeamIds).toEqual(['team_t']);
    const m = await readMembership(org, 'team_t');
    expect(m.invites).toEqual([]);
    expect(m.members.map((x) => x.userId)).toEqual(['user_later']);
    expect(await teamsOf(org, 'user_later')).toEqual(['team_t']);
  });

  it('deleting a team removes every membership mirror and the team', async () => {
    const org = orgId();
    const ids = await seedOrg(org, 3);
    await syncTeam(adminOf(org), 'team_t', { members: ids.map((userId) => ({ userId })) }, deps());
    await deleteTeam(adminOf(org), 'team_t');
    for (const id of ids) expect(await teamsOf(org, id)).toEqual([]);
    const item = await db().send(new GetCommand({ TableName: tableName(), Key: keys.team(org, 'team_t') }));
    expect(item.Item).toBeUndefined();
    await expect(readTeam(adminOf(org), 'team_t')).rejects.toMatchObject({ status: 404 });
  });
});
