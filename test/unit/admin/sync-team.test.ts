import type { Principal } from '../../../shared/auth/principal';
import type { Team } from '../../../shared/db/teams-repo';
import type { Invitation, InvitationSender } from '../../../shared/domain/teams/invitations';
import {
  SYNC_INLINE_LIMITS,
  SYNC_LEASE_MS,
  type SyncDeps,
  syncTeam,
} from '../../../shared/domain/teams/sync';
import { ConflictError, NotFoundError, ShapedError } from '../../../shared/errors';
import type { MembershipOp, SyncLock, TeamMembership } from '../../../shared/model/teams';

/** An in-memory team with the repo's conditional semantics (version, lock, lease). */
class FakeTeam {
  members = new Map<string, string | undefined>();
  invites = new Map<string, string | undefined>();
  version = 0;
  lock: SyncLock | undefined;
  writes = 0;
  failChunkAt: number | undefined;
  chunkCalls = 0;
  conflictsToInject = 0;

  snapshot(): TeamMembership {
    return {
      members: [...this.members].map(([userId, email]) => ({
        userId,
        ...(email ? { email } : {}),
        addedAt: 't',
      })),
      invites: [...this.invites].map(([email, invitationId]) => ({
        email,
        invitedAt: 't',
        invitedById: 'u',
        ...(invitationId ? { invitationId } : {}),
      })),
      version: this.version,
      ...(this.lock ? { lock: { ...this.lock } } : {}),
    };
  }

  apply(ops: readonly MembershipOp[]) {
    for (const op of ops) {
      if (op.kind === 'add') this.members.set(op.userId, op.email);
      else if (op.kind === 'remove') this.members.delete(op.userId);
      else if (op.kind === 'invite') this.invites.set(op.email, op.invitationId);
      else this.invites.delete(op.email);
    }
    this.writes++;
  }
}

const team: Team = { id: 'team_x', organizationId: 'org_t', name: 'Platform', createdAt: 't' };
const admin: Principal = {
  orgId: 'org_t',
  principalId: 'user_admin',
  kind: 'user',
  role: 'admin',
  teamIds: [],
};
const users = new Map(
  Array.from({ length: 80 }, (_, i) => [`user_${i}`, { id: `user_${i}`, email: `u${i}@example.com` }]),
);

function deps(fake: FakeTeam, overrides: Partial<SyncDeps> = {}) {
  let clock = Date.parse('2026-03-01T00:00:00Z');
  const sent: Invitation[] = [];
  const invitations: InvitationSender = {
    configured: true,
    send: async (inv) => {
      sent.push(inv);
      return { invitationId: `inv_${sent.length}` };
    },
  };
  const d: SyncDeps = {
    getTeam: async (_o, id) => (id === team.id ? team : undefined),
    findTeamsByName: async (_o, name) => (name.toLowerCase() === 'platform' ? [team] : []),
    getUsers: async (_o, ids) => new Map(ids.flatMap((id) => (users.has(id) ? [[id, users.get(id)!]] : []))),
    findUsersByEmail: async (_o, email) => [...users.values()].filter((u) => u.email === email),
    readMembership: async () => fake.snapshot(),
    applyMembership: async (_o, _t, ops, expect) => {
      if (fake.conflictsToInject > 0) {
        fake.conflictsToInject--;
        fake.version++; // someone else's write
        throw new ConflictError('SYNC_CONFLICT');
      }
      if (fake.version !== expect.version) throw new ConflictError('SYNC_CONFLICT');
      if (expect.lockOpId ? fake.lock?.opId !== expect.lockOpId : fake.lock)
        throw new ConflictError('SYNC_CONFLICT');
      fake.apply(ops);
      fake.version++;
      fake.lock = undefined;
    },
    acquireSyncLock: async (_o, _t, lock, expect, now) => {
      if (fake.version !== expect.version) throw new ConflictError('SYNC_CONFLICT');
      const free = !fake.lock || fake.lock.opId === expect.lockOpId || fake.lock.leaseUntil < now;
      if (!free) throw new ConflictError('SYNC_CONFLICT');
      fake.lock = { ...lock };
    },
    applyMembershipChunk: async (_o, _t, ops, lock) => {
      fake.chunkCalls++;
      if (fake.failChunkAt === fake.chunkCalls) throw new Error('Lambda timed out');
      if (fake.lock?.opId !== lock.opId) throw new ConflictError('SYNC_CONFLICT');
      fake.lock.leaseUntil = lock.leaseUntil;
      fake.apply(ops);
    },
    releaseSyncLock: async (_o, _t, opId, ctx) => {
      if (fake.lock?.opId !== opId) throw new ConflictError('SYNC_CONFLICT');
      if (ctx.changed) fake.version++;
      fake.lock = undefined;
    },
    invitations,
    now: () => new Date(clock),
    newOpId: (() => {
      let n = 0;
      return () => `sync_${++n}`;
    })(),
    maxTransactionItems: 100,
    inlineLimits: SYNC_INLINE_LIMITS,
    ...overrides,
  };
  return { d, sent, advance: (ms: number) => (clock += ms) };
}

async function failure(p: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ShapedError) return { status: e.status, body: e.body() as Record<string, unknown> };
    throw e;
  }
  throw new Error('expected a failure');
}

const ids = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({ userId: `user_${from + i}` }));

describe('syncTeam orchestration', () => {
  it('adds, removes and invites in one transaction; the repeat writes nothing', async () => {
    const fake = new FakeTeam();
    fake.members.set('user_1', 'u1@example.com');
    const { d, sent } = deps(fake);
    const body = {
      members: [{ userId: 'user_2' }, { email: 'u3@example.com' }, { email: 'new@example.com' }],
    };
    await expect(syncTeam(admin, 'PLATFORM', body, d)).resolves.toEqual({ success: true });
    expect([...fake.members.keys()].sort()).toEqual(['user_2', 'user_3']);
    expect([...fake.invites]).toEqual([['new@example.com', 'inv_1']]);
    expect(fake.writes).toBe(1);
    expect(sent.map((s) => s.email)).toEqual(['new@example.com']);

    await syncTeam(admin, 'team_x', body, d);
    expect(fake.writes).toBe(1);
    expect(sent).toHaveLength(1);
    expect(fake.version).toBe(1);
  });

  it('answers the sync error shape with the would-be summary and writes nothing on a bad entry', async () => {
    const fake = new FakeTeam();
    fake.members.set('user_1', undefined);
    const { d, sent } = deps(fake);
    const res = await failure(
      syncTeam(
        admin,
        'team_x',
        { members: [{ userId: 'user_2' }, { userId: 'user_nope' }, { email: 'n@x.io' }] },
        d,
      ),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'VALIDATION_ERROR',
      reason: 'members.1.userId: unknown user user_nope',
      details: [{ path: 'members.1.userId', message: 'unknown user user_nope' }],
      summary: { added: 1, removed: 1, invited: 1 },
    });
    expect(fake.writes).toBe(0);
    expect(sent).toHaveLength(0);
  });

  it('answers 404 in the sync shape for an unknown team', async () => {
    const { d } = deps(new FakeTeam());
    const res = await failure(syncTeam(admin, 'team_other_org', { members: [] }, d));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'NOT_FOUND', summary: { added: 0, removed: 0, invited: 0 } });
    expect(Array.isArray(res.body.details)).toBe(true);
  });

  it('answers 409 AMBIGUOUS_TEAM_NAME when a name matches several teams', async () => {
    const twin = { ...team, id: 'team_y' };
    const { d } = deps(new FakeTeam(), { findTeamsByName: async () => [team, twin] });
    const res = await failure(syncTeam(admin, 'platform', { members: [] }, d));
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('AMBIGUOUS_TEAM_NAME');
    expect(res.body.reason).toMatch(/use the team id/);
  });

  it('re-plans after a concurrent change and then succeeds', async () => {
    const fake = new FakeTeam();
    fake.conflictsToInject = 1;
    const { d } = deps(fake);
    await syncTeam(admin, 'team_x', { members: ids(0, 3) }, d);
    expect(fake.members.size).toBe(3);
  });

  it('gives up with 409 SYNC_CONFLICT when the membership keeps changing', async () => {
    const fake = new FakeTeam();
    fake.conflictsToInject = 5;
    const { d } = deps(fake);
    const res = await failure(syncTeam(admin, 'team_x', { members: ids(0, 2) }, d));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'SYNC_CONFLICT', summary: { added: 2, removed: 0, invited: 0 } });
  });

  it('fails before writing when an invitation is refused by the identity provider', async () => {
    const fake = new FakeTeam();
    const { d } = deps(fake, {
      invitations: {
        configured: true,
        send: async () => {
          throw new Error('503');
        },
      },
    });
    const res = await failure(
      syncTeam(admin, 'team_x', { members: [{ userId: 'user_1' }, { email: 'n@x.io' }] }, d),
    );
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({
      error: 'INVITATION_FAILED',
      summary: { added: 1, removed: 0, invited: 1 },
    });
    expect(fake.writes).toBe(0);
  });

  it('refuses to invite when no identity provider is configured', async () => {
    const fake = new FakeTeam();
    const { d } = deps(fake, { invitations: { configured: false, send: async () => ({}) } });
    const res = await failure(syncTeam(admin, 'team_x', { members: [{ email: 'n@x.io' }] }, d));
    expect(res.status).toBe(503);
    expect(fake.writes).toBe(0);
  });

  describe('past one transaction', () => {
    it('applies in chunks under the lock, removals first, and releases it', async () => {
      const fake = new FakeTeam();
      for (const { userId } of ids(0, 10)) fake.members.set(userId, undefined);
      const { d } = deps(fake, { maxTransactionItems: 10 });
      const seen: string[][] = [];
      const apply = d.applyMembershipChunk;
      d.applyMembershipChunk = async (o, t, ops, lock, ctx) => {
        seen.push(ops.map((op) => op.kind));
        await apply(o, t, ops, lock, ctx);
      };
      await syncTeam(admin, 'team_x', { members: ids(10, 30) }, d);
      expect([...fake.members.keys()].sort()).toEqual(
        ids(10, 30)
          .map((m) => m.userId)
          .sort(),
      );
      expect(fake.lock).toBeUndefined();
      expect(fake.version).toBe(1);
      // 30 changes x 2 items in chunks of 8 items (10 minus the team check and the lock update)
      expect(seen).toHaveLength(8);
      expect(seen.flat().indexOf('add')).toBe(10); // every removal before any addition
    });

    it('a crash part-way is resumed by the same sync, which applies only what is left', async () => {
      const fake = new FakeTeam();
      fake.failChunkAt = 3;
      const { d } = deps(fake, { maxTransactionItems: 10 });
      await expect(syncTeam(admin, 'team_x', { members: ids(0, 40) }, d)).rejects.toThrow('Lambda timed out');
      expect(fake.members.size).toBe(8); // two chunks of 4 memberships
      expect(fake.lock).toBeDefined();

      fake.failChunkAt = undefined;
      const before = fake.chunkCalls;
      await syncTeam(admin, 'team_x', { members: ids(0, 40) }, d);
      expect(fake.members.size).toBe(40);
      expect(fake.lock).toBeUndefined();
      expect(fake.chunkCalls - before).toBe(8); // 32 remaining, 4 per chunk
    });

    it('another sync waits for the lease of a crashed one (409) and then takes over', async () => {
      const fake = new FakeTeam();
      fake.failChunkAt = 1;
      const { d, advance } = deps(fake, { maxTransactionItems: 10 });
      await expect(syncTeam(admin, 'team_x', { members: ids(0, 20) }, d)).rejects.toThrow();
      fake.failChunkAt = undefined;
      const res = await failure(syncTeam(admin, 'team_x', { members: ids(5, 25) }, d));
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        error: 'SYNC_IN_PROGRESS',
        summary: { added: 20, removed: 0, invited: 0 },
      });

      advance(SYNC_LEASE_MS + 1);
      await syncTeam(admin, 'team_x', { members: ids(5, 25) }, d);
      expect([...fake.members.keys()].sort()).toEqual(
        ids(5, 25)
          .map((m) => m.userId)
          .sort(),
      );
      expect(fake.lock).toBeUndefined();
    });

    it('an empty plan drops a lock left after the last chunk', async () => {
      const fake = new FakeTeam();
      const { d } = deps(fake, { maxTransactionItems: 10 });
      d.releaseSyncLock = async () => {
        throw new Error('crash before release');
      };
      await expect(syncTeam(admin, 'team_x', { members: ids(0, 6) }, d)).rejects.toThrow(
        'crash before release',
      );
      expect(fake.lock).toBeDefined();
      const { d: d2 } = deps(fake, { maxTransactionItems: 10 });
      await syncTeam(admin, 'team_x', { members: ids(0, 6) }, d2);
      expect(fake.lock).toBeUndefined();
      expect(fake.version).toBe(1);
    });
  });

  it('maps a team deleted meanwhile to 404 in the sync shape', async () => {
    const { d } = deps(new FakeTeam(), {
      applyMembership: async () => {
        throw new NotFoundError('NOT_FOUND');
      },
    });
    const res = await failure(syncTeam(admin, 'team_x', { members: ids(0, 1) }, d));
    expect(res.status).toBe(404);
    expect(res.body.summary).toEqual({ added: 0, removed: 0, invited: 0 });
  });
});
