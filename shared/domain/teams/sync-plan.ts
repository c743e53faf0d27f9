import { createHash } from 'node:crypto';
import type { FieldIssue } from '../../errors';
import { type MembershipOp, opItemCount, type SyncSummary, type TeamMembership } from '../../model/teams';

/**
 * The pure half of `POST /iac/teams/{id}/SYNC`: from the payload, what the org knows about its
 * users and the team's current membership, decide what to add, remove, invite and cancel. No I/O.
 */
export interface SyncMemberInput {
  userId?: string | null | undefined;
  email?: string | null | undefined;
}

export interface KnownUser {
  id: string;
  email: string;
}

/** What the org knows: users by id (those named in the payload) and by lower-cased e-mail. */
export interface UserDirectory {
  byId: ReadonlyMap<string, KnownUser>;
  byEmail: ReadonlyMap<string, readonly KnownUser[]>;
}

export interface DesiredMembership {
  /** userId → e-mail to record on the member item. */
  members: Map<string, string | undefined>;
  /** Lower-cased e-mails unknown to the org. */
  invites: Set<string>;
  issues: FieldIssue[];
}

const lower = (email: string) => email.trim().toLowerCase();

/**
 * The issue of member `i` when its `field` (a user id or an e-mail) was already given by an earlier
 * member; otherwise records it as member `i`'s and answers undefined.
 */
function repeated(
  seen: Map<string, number>,
  key: string | undefined,
  i: number,
  field: 'userId' | 'email',
): FieldIssue | undefined {
  if (key === undefined) return undefined;
  const first = seen.get(key);
  if (first !== undefined)
    return { path: `members.${i}.${field}`, message: `duplicate of members.${first}.${field}` };
  seen.set(key, i);
  return undefined;
}

/**
 * Resolves each payload entry to a user or an invitation, collecting every problem with its path:
 * the same userId or e-mail twice, an unknown userId, a userId whose e-mail differs from the one
 * given, an e-mail shared by several users, and two entries that resolve to the same user.
 */
export function resolveDesired(entries: readonly SyncMemberInput[], users: UserDirectory): DesiredMembership {
  const members = new Map<string, string | undefined>();
  const invites = new Set<string>();
  const issues: FieldIssue[] = [];
  const seenIds = new Map<string, number>();
  const seenEmails = new Map<string, number>();
  const resolvedAt = new Map<string, number>();

  entries.forEach((entry, i) => {
    const userId = entry.userId ?? undefined;
    const email = entry.email ? lower(entry.email) : undefined;
    if (!userId && !email) {
      issues.push({ path: `members.${i}`, message: 'each member needs a userId or an email' });
      return;
    }
    const duplicate = repeated(seenIds, userId, i, 'userId') ?? repeated(seenEmails, email, i, 'email');
    if (duplicate) {
      issues.push(duplicate);
      return;
    }

    let resolved: KnownUser | undefined;
    if (userId !== undefined) {
      resolved = users.byId.get(userId);
      if (!resolved) {
        issues.push({ path: `members.${i}.userId`, message: `unknown user ${userId}` });
        return;
      }
      if (email !== undefined && lower(resolved.email) !== email) {
        issues.push({ path: `members.${i}.email`, message: `does not match the e-mail of user ${userId}` });
        return;
      }
    } else if (email !== undefined) {
      const matches = users.byEmail.get(email) ?? [];
      if (matches.length > 1) {
        issues.push({
          path: `members.${i}.email`,
          message: 'matches several users of the organisation; give the userId',
        });
        return;
      }
      resolved = matches[0];
      if (!resolved) {
        invites.add(email);
        return;
      }
    }
    if (!resolved) return;
    const first = resolvedAt.get(resolved.id);
    if (first !== undefined) {
      issues.push({ path: `members.${i}`, message: `same user as members.${first}` });
      return;
    }
    resolvedAt.set(resolved.id, i);
    members.set(resolved.id, resolved.email);
  });
  return { members, invites, issues };
}

export interface SyncPlan {
  ops: MembershipOp[];
  summary: SyncSummary;
}

/**
 * The operations that turn `current` into `desired`, removals first (members, then pending
 * invitations no longer wanted), then additions and invitations. Removed invitations count as
 * removed in the summary. An invitation whose e-mail now belongs to a user is cancelled as the
 * user is added. Empty when the team already matches: a repeated sync writes nothing.
 */
export function planSync(
  desired: Pick<DesiredMembership, 'members' | 'invites'>,
  current: TeamMembership,
): SyncPlan {
  const currentIds = new Set(current.members.map((m) => m.userId));
  const currentInvites = new Set(current.invites.map((i) => lower(i.email)));
  const ops: MembershipOp[] = [];
  for (const id of [...currentIds].sort())
    if (!desired.members.has(id)) ops.push({ kind: 'remove', userId: id });
  for (const email of [...currentInvites].sort())
    if (!desired.invites.has(email)) ops.push({ kind: 'cancelInvite', email });
  const removed = ops.length;
  let added = 0;
  for (const [id, email] of [...desired.members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (currentIds.has(id)) continue;
    ops.push({ kind: 'add', userId: id, ...(email ? { email } : {}) });
    added++;
  }
  let invited = 0;
  for (const email of [...desired.invites].sort()) {
    if (currentInvites.has(email)) continue;
    ops.push({ kind: 'invite', email });
    invited++;
  }
  return { ops, summary: { added, removed, invited } };
}

/**
 * Splits operations into transactions of at most `maxItems` items, in order, never splitting an
 * operation's items (a membership and its mirror always change together).
 */
export function chunkOps(ops: readonly MembershipOp[], maxItems: number): MembershipOp[][] {
  const chunks: MembershipOp[][] = [];
  let current: MembershipOp[] = [];
  let size = 0;
  for (const op of ops) {
    const n = opItemCount(op);
    if (size + n > maxItems && current.length > 0) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(op);
    size += n;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export function itemCount(ops: readonly MembershipOp[]): number {
  return ops.reduce((n, op) => n + opItemCount(op), 0);
}

/** Identifies a desired member set, so a resumed sync can recognise its own lock. */
export function desiredHash(desired: Pick<DesiredMembership, 'members' | 'invites'>): string {
  const body = JSON.stringify({ u: [...desired.members.keys()].sort(), i: [...desired.invites].sort() });
  return createHash('sha256').update(body).digest('hex').slice(0, 32);
}
