import {
  chunkOps,
  desiredHash,
  itemCount,
  type KnownUser,
  planSync,
  resolveDesired,
  type UserDirectory,
} from '../../../shared/domain/teams/sync-plan';
import type { TeamMembership } from '../../../shared/model/teams';

const alice: KnownUser = { id: 'user_alice', email: 'Alice@Example.com' };
const bob: KnownUser = { id: 'user_bob', email: 'bob@example.com' };
const carol: KnownUser = { id: 'user_carol', email: 'carol@example.com' };

function directory(users: KnownUser[], extraByEmail: [string, KnownUser[]][] = []): UserDirectory {
  const byEmail = new Map<string, KnownUser[]>(users.map((u) => [u.email.toLowerCase(), [u]]));
  for (const [e, list] of extraByEmail) byEmail.set(e, list);
  return { byId: new Map(users.map((u) => [u.id, u])), byEmail };
}

const empty: TeamMembership = { members: [], invites: [], version: 0 };

describe('resolveDesired', () => {
  it('resolves ids, known e-mails (any casing) and invites unknown e-mails', () => {
    const d = resolveDesired(
      [{ userId: 'user_alice' }, { email: 'BOB@example.com' }, { email: 'new@example.com' }],
      directory([alice, bob]),
    );
    expect(d.issues).toEqual([]);
    expect([...d.members.keys()].sort()).toEqual(['user_alice', 'user_bob']);
    expect([...d.invites]).toEqual(['new@example.com']);
  });

  it('accepts userId and email together when they agree, case-insensitively', () => {
    const d = resolveDesired([{ userId: 'user_alice', email: 'alice@example.COM' }], directory([alice]));
    expect(d.issues).toEqual([]);
    expect(d.members.get('user_alice')).toBe('Alice@Example.com');
  });

  it.each([
    [[{ userId: 'user_alice' }, { userId: 'user_alice' }], 'members.1.userId', /duplicate of members.0/],
    [[{ email: 'x@example.com' }, { email: 'X@EXAMPLE.com' }], 'members.1.email', /duplicate of members.0/],
    [[{ userId: 'user_alice' }, { email: 'alice@example.com' }], 'members.1', /same user as members.0/],
    [[{ userId: 'user_nobody' }], 'members.0.userId', /unknown user/],
    [[{ userId: 'user_alice', email: 'bob@example.com' }], 'members.0.email', /does not match/],
    [[{}], 'members.0', /userId or an email/],
  ])('reports %j at %s', (entries, path, message) => {
    const d = resolveDesired(entries, directory([alice, bob]));
    expect(d.issues).toHaveLength(1);
    expect(d.issues[0]?.path).toBe(path);
    expect(d.issues[0]?.message).toMatch(message);
  });

  it('refuses an e-mail shared by several users', () => {
    const twin = { id: 'user_twin', email: 'bob@example.com' };
    const d = resolveDesired(
      [{ email: 'bob@example.com' }],
      directory([bob], [['bob@example.com', [bob, twin]]]),
    );
    expect(d.issues[0]?.message).toMatch(/several users/);
  });

  it('lists every issue, not just the first', () => {
    const d = resolveDesired(
      [{ userId: 'user_x' }, { userId: 'user_y' }, { userId: 'user_alice' }],
      directory([alice]),
    );
    expect(d.issues.map((i) => i.path)).toEqual(['members.0.userId', 'members.1.userId']);
    expect(d.members.has('user_alice')).toBe(true);
  });
});

describe('planSync', () => {
  const current: TeamMembership = {
    members: [
      { userId: 'user_alice', addedAt: 't' },
      { userId: 'user_bob', addedAt: 't' },
    ],
    invites: [{ email: 'old@example.com', invitedAt: 't', invitedById: 'u' }],
    version: 3,
  };

  it('removes first, then adds and invites, and counts each kind', () => {
    const d = resolveDesired(
      [{ userId: 'user_alice' }, { userId: 'user_carol' }, { email: 'new@example.com' }],
      directory([alice, bob, carol]),
    );
    const plan = planSync(d, current);
    expect(plan.ops).toEqual([
      { kind: 'remove', userId: 'user_bob' },
      { kind: 'cancelInvite', email: 'old@example.com' },
      { kind: 'add', userId: 'user_carol', email: 'carol@example.com' },
      { kind: 'invite', email: 'new@example.com' },
    ]);
    expect(plan.summary).toEqual({ added: 1, removed: 2, invited: 1 });
  });

  it('is empty when the team already matches (a repeated sync writes nothing)', () => {
    const d = resolveDesired(
      [{ userId: 'user_alice' }, { email: 'bob@example.com' }, { email: 'OLD@example.com' }],
      directory([alice, bob]),
    );
    expect(planSync(d, current)).toEqual({ ops: [], summary: { added: 0, removed: 0, invited: 0 } });
  });

  it('an empty payload removes everyone', () => {
    const plan = planSync(resolveDesired([], directory([])), current);
    expect(plan.summary).toEqual({ added: 0, removed: 3, invited: 0 });
  });

  it('adds to an empty team', () => {
    const plan = planSync(resolveDesired([{ userId: 'user_alice' }], directory([alice])), empty);
    expect(plan.ops).toEqual([{ kind: 'add', userId: 'user_alice', email: 'Alice@Example.com' }]);
  });
});

describe('chunkOps', () => {
  const adds = Array.from({ length: 7 }, (_, i) => ({ kind: 'add' as const, userId: `user_${i}` }));
  const invites = Array.from({ length: 3 }, (_, i) => ({ kind: 'invite' as const, email: `${i}@x.io` }));

  it('never exceeds the item budget and never splits a membership pair', () => {
    const ops = [...adds, ...invites];
    const chunks = chunkOps(ops, 5);
    for (const c of chunks) expect(itemCount(c)).toBeLessThanOrEqual(5);
    expect(chunks.flat()).toEqual(ops);
    expect(chunks[0]).toHaveLength(2); // 2+2 items; a third add would make 6
  });

  it('fits 49 membership changes in a 98-item transaction and spills the 50th', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ kind: 'remove' as const, userId: `user_${i}` }));
    expect(chunkOps(many, 98).map((c) => c.length)).toEqual([49, 1]);
  });

  it('answers no chunk for no operation', () => {
    expect(chunkOps([], 98)).toEqual([]);
  });
});

describe('desiredHash', () => {
  it('depends on the member set, not on order or casing of input', () => {
    const dir = directory([alice, bob]);
    const a = desiredHash(resolveDesired([{ userId: 'user_alice' }, { email: 'x@y.io' }], dir));
    const b = desiredHash(resolveDesired([{ email: 'X@Y.io' }, { email: 'alice@example.com' }], dir));
    const c = desiredHash(resolveDesired([{ userId: 'user_bob' }, { email: 'x@y.io' }], dir));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});
