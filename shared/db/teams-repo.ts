import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '../errors';
import type { MembershipOp, SyncLock, TeamMembership } from '../model/teams';
import { db, tableName } from './client';
import { defineEntity, type TransactItem, transact } from './entity';
import { getItem, queryExact, queryIndex, queryPartition } from './items';
import { keys } from './keys';
import { type Page, queryListing } from './page';
import { ifConditionFails, notFound } from './writes';

export interface Team {
  id: string;
  organizationId: string;
  name: string;
  createdAt: string;
  description?: string;
  createdById?: string;
  updatedAt?: string;
  /** Set while a DELETE removes the memberships; the team then refuses syncs and is hidden. */
  deletingAt?: string;
}

/** A team, found by name through GSI1. */
const teams = defineEntity<Team>({
  name: 'team',
  schemaVersion: 1,
  key: (team) => keys.team(team.organizationId, team.id),
  indexes: (team) => keys.teamByName(team.organizationId, team.name),
});
const fromItem = teams.read;

interface MemberRef {
  orgId: string;
  teamId: string;
}

/** The team's member item. */
const members = defineEntity<
  MemberRef & { userId: string; email?: string; addedAt: string; addedById: string }
>({
  name: 'teamMember',
  schemaVersion: 1,
  key: (m) => keys.teamMember(m.orgId, m.teamId, m.userId),
  attributes: ({ orgId: _org, ...member }) => member,
});

/** The principal's mirror of a membership, read with the principal on every request. */
const memberships = defineEntity<MemberRef & { userId: string; addedAt: string }>({
  name: 'membership',
  schemaVersion: 1,
  key: (m) => keys.principalTeam(m.orgId, m.userId, m.teamId),
  attributes: (m) => ({ teamId: m.teamId, addedAt: m.addedAt }),
});

/** A pending invitation of an e-mail unknown to the org; GSI1 finds every team an e-mail is invited to. */
const invites = defineEntity<
  MemberRef & { email: string; invitedAt: string; invitedById: string; invitationId?: string }
>({
  name: 'teamInvite',
  schemaVersion: 1,
  key: (i) => keys.teamInvite(i.orgId, i.teamId, i.email),
  indexes: (i) => keys.invitesByEmail(i.orgId, i.email, i.teamId),
  attributes: ({ orgId: _org, email, ...invite }) => ({ ...invite, email: email.toLowerCase() }),
});

/** The team's membership version and chunked-sync lock, written through `SET` (no `schemaVersion`). */
const syncStates = defineEntity<never>({ name: 'teamSyncState' });

export async function getTeam(orgId: string, teamId: string): Promise<Team | undefined> {
  return getItem(keys.team(orgId, teamId), fromItem);
}

/** A team read strongly consistent (admin writes read their own previous write). */
export async function getTeamConsistent(orgId: string, teamId: string): Promise<Team | undefined> {
  return teams.get(keys.team(orgId, teamId));
}

/** Teams whose name is `name`, case-insensitively (GSI1, eventually consistent). */
export async function findTeamsByName(orgId: string, name: string): Promise<Team[]> {
  return queryExact(keys.teamByName(orgId, name), fromItem, 25);
}

export async function listTeams(orgId: string, limit: number, cursor?: string): Promise<Page<Team>> {
  return queryListing(keys.teamsListing(orgId), { limit, cursor }, fromItem);
}

export async function insertTeam(team: Team): Promise<void> {
  await teams.insert(team);
}

/** Writes a team unless it exists (the local seed); answers whether it wrote. */
export async function ensureTeam(team: Team): Promise<boolean> {
  return teams.insertIfAbsent(team);
}

/** Renames or re-describes a team that exists and is not being deleted; answers the new record. */
export async function updateTeam(
  orgId: string,
  teamId: string,
  patch: { name?: string; description?: string },
  at: string,
): Promise<Team> {
  const names: Record<string, string> = { '#deleting': 'deletingAt' };
  const values: Record<string, unknown> = { ':at': at };
  const sets = ['updatedAt = :at'];
  if (patch.name !== undefined) {
    names['#name'] = 'name';
    values[':name'] = patch.name;
    values[':g1sk'] = keys.teamByName(orgId, patch.name).gsi1sk;
    sets.push('#name = :name', 'gsi1sk = :g1sk');
  }
  if (patch.description !== undefined) {
    names['#description'] = 'description';
    values[':description'] = patch.description;
    sets.push('#description = :description');
  }
  const res = await ifConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.team(orgId, teamId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#deleting)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    ),
    notFound,
  );
  return fromItem(res.Attributes ?? {});
}

// ---------------------------------------------------------------------------------------------
// Membership: member items + principal mirrors, pending invitations and the sync state item.

/** The whole membership of a team with one strongly consistent (paginated) query on its partition. */
export async function readMembership(orgId: string, teamId: string): Promise<TeamMembership> {
  const p = keys.teamPartitionPrefixes;
  const out: TeamMembership = { members: [], invites: [], version: 0 };
  for (const item of await queryPartition(keys.teamMembersPartition(orgId, teamId), (i) => i)) {
    const sk = String(item.sk);
    if (sk.startsWith(p.member)) {
      out.members.push({
        userId: String(item.userId ?? sk.slice(p.member.length)),
        ...(typeof item.email === 'string' ? { email: item.email } : {}),
        addedAt: String(item.addedAt ?? ''),
      });
    } else if (sk.startsWith(p.invite)) {
      out.invites.push({
        email: String(item.email),
        invitedAt: String(item.invitedAt ?? ''),
        invitedById: String(item.invitedById ?? ''),
        ...(typeof item.invitationId === 'string' ? { invitationId: item.invitationId } : {}),
      });
    } else if (sk === p.sync) {
      out.version = Number(item.version ?? 0);
      if (item.lock && typeof item.lock === 'object') out.lock = item.lock as SyncLock;
      if (typeof item.lastSyncAt === 'string') out.lastSyncAt = item.lastSyncAt;
    }
  }
  return out;
}

function opItems(
  orgId: string,
  teamId: string,
  op: MembershipOp,
  ctx: { at: string; actorId: string },
): TransactItem[] {
  const TableName = tableName();
  switch (op.kind) {
    case 'add': {
      const member = { orgId, teamId, userId: op.userId, addedAt: ctx.at };
      return [
        members.transactPut(
          { ...member, ...(op.email ? { email: op.email } : {}), addedById: ctx.actorId },
          null,
        ),
        memberships.transactPut(member, null),
      ];
    }
    case 'remove':
      return [
        { Delete: { TableName, Key: keys.teamMember(orgId, teamId, op.userId) } },
        { Delete: { TableName, Key: keys.principalTeam(orgId, op.userId, teamId) } },
      ];
    case 'invite':
      return [
        invites.transactPut(
          {
            orgId,
            teamId,
            email: op.email,
            invitedAt: ctx.at,
            invitedById: ctx.actorId,
            ...(op.invitationId ? { invitationId: op.invitationId } : {}),
          },
          null,
        ),
      ];
    case 'cancelInvite':
      return [{ Delete: { TableName, Key: keys.teamInvite(orgId, teamId, op.email) } }];
  }
}

/**
 * Adds a member outside a sync (the local seed): the team's member item and the principal's
 * mirror, in one transaction, the same items a sync's `add` writes.
 */
export async function addTeamMember(
  orgId: string,
  teamId: string,
  principalId: string,
  email?: string,
): Promise<void> {
  const op: MembershipOp = { kind: 'add', userId: principalId, ...(email ? { email } : {}) };
  const ctx = { at: new Date().toISOString(), actorId: principalId };
  await transact(opItems(orgId, teamId, op, ctx));
}

/** The team must exist and not be under deletion for any membership write. */
function teamLiveCheck(orgId: string, teamId: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.team(orgId, teamId),
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletingAt)',
    },
  };
}

const syncConflict = (): never => {
  throw new ConflictError('SYNC_CONFLICT');
};

/** Items of one transaction besides the operations: the team check and the sync-state update. */
export const TRANSACTION_OVERHEAD_ITEMS = 2;
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * `onCanceled` of a membership transaction whose first item is the team check: a failed check is a
 * 404 `NOT_FOUND`, any other failed condition or a concurrent transaction a 409 `SYNC_CONFLICT`.
 */
function membershipConflict(codes: string[], error: unknown): never {
  if (codes[0] === 'ConditionalCheckFailed') throw new NotFoundError('NOT_FOUND');
  if (codes.some((c) => c === 'ConditionalCheckFailed' || c === 'TransactionConflict'))
    throw new ConflictError('SYNC_CONFLICT');
  throw error;
}

/**
 * Applies a whole membership change in one transaction, conditional on the team being live, on the
 * version it was planned from and on no other sync holding the lock (a lock seen when planning, e.g.
 * left by a crashed chunked sync of the same payload, may be taken over). Bumps the version.
 * Throws ConflictError('SYNC_CONFLICT') if someone else changed the membership meanwhile.
 */
export async function applyMembership(
  orgId: string,
  teamId: string,
  ops: readonly MembershipOp[],
  expect: { version: number; lockOpId?: string },
  ctx: { at: string; actorId: string; payloadHash: string },
): Promise<void> {
  const items: TransactItem[] = [teamLiveCheck(orgId, teamId), syncStateUpdate(orgId, teamId, expect, ctx)];
  for (const op of ops) items.push(...opItems(orgId, teamId, op, ctx));
  if (items.length > MAX_TRANSACTION_ITEMS) throw new Error(`transaction of ${items.length} items`);
  await transact(items, membershipConflict);
}

function syncStateUpdate(
  orgId: string,
  teamId: string,
  expect: { version: number; lockOpId?: string },
  ctx: { at: string; payloadHash: string },
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.teamSyncState(orgId, teamId),
      UpdateExpression: `SET #version = :next, lastSyncAt = :at, lastPayloadHash = :hash, ${syncStates.envelopeSet.expression}, teamId = :teamId REMOVE #lock`,
      ConditionExpression:
        (expect.version === 0
          ? '(attribute_not_exists(#version) OR #version = :expected)'
          : '#version = :expected') +
        (expect.lockOpId ? ' AND #lock.opId = :lockOp' : ' AND attribute_not_exists(#lock)'),
      ExpressionAttributeNames: { '#version': 'version', '#lock': 'lock' },
      ExpressionAttributeValues: {
        ':next': expect.version + 1,
        ':expected': expect.version,
        ':at': ctx.at,
        ':hash': ctx.payloadHash,
        ...syncStates.envelopeSet.values,
        ':teamId': teamId,
        ...(expect.lockOpId ? { ':lockOp': expect.lockOpId } : {}),
      },
    },
  };
}

/**
 * Takes the chunked-sync lock: only from the planned version, and only if no lock is held, the
 * held one's lease expired, or it is the one seen when planning (a resumed identical sync).
 */
export async function acquireSyncLock(
  orgId: string,
  teamId: string,
  lock: SyncLock,
  expect: { version: number; lockOpId?: string },
  now: string,
): Promise<void> {
  const versionCond =
    expect.version === 0
      ? '(attribute_not_exists(#version) OR #version = :expected)'
      : '#version = :expected';
  const lockCond = expect.lockOpId
    ? '(attribute_not_exists(#lock) OR #lock.opId = :seen OR #lock.leaseUntil < :now)'
    : '(attribute_not_exists(#lock) OR #lock.leaseUntil < :now)';
  await ifConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.teamSyncState(orgId, teamId),
        UpdateExpression: `SET #lock = :lock, ${syncStates.envelopeSet.expression}, teamId = :teamId, #version = if_not_exists(#version, :zero)`,
        ConditionExpression: `${versionCond} AND ${lockCond}`,
        ExpressionAttributeNames: { '#version': 'version', '#lock': 'lock' },
        ExpressionAttributeValues: {
          ':lock': lock,
          ':expected': expect.version,
          ':now': now,
          ':zero': 0,
          ...syncStates.envelopeSet.values,
          ':teamId': teamId,
          ...(expect.lockOpId ? { ':seen': expect.lockOpId } : {}),
        },
      }),
    ),
    syncConflict,
  );
}

/**
 * Applies one chunk of a chunked sync in one transaction, conditional on still holding the lock
 * (whose lease it extends). Every operation is a plain put or delete of a deterministic item, so
 * applying a chunk twice converges to the same state.
 */
export async function applyMembershipChunk(
  orgId: string,
  teamId: string,
  ops: readonly MembershipOp[],
  lock: { opId: string; leaseUntil: string },
  ctx: { at: string; actorId: string },
): Promise<void> {
  const items: TransactItem[] = [
    teamLiveCheck(orgId, teamId),
    {
      Update: {
        TableName: tableName(),
        Key: keys.teamSyncState(orgId, teamId),
        UpdateExpression: 'SET #lock.leaseUntil = :lease',
        ConditionExpression: '#lock.opId = :op',
        ExpressionAttributeNames: { '#lock': 'lock' },
        ExpressionAttributeValues: { ':lease': lock.leaseUntil, ':op': lock.opId },
      },
    },
  ];
  for (const op of ops) items.push(...opItems(orgId, teamId, op, ctx));
  if (items.length > MAX_TRANSACTION_ITEMS) throw new Error(`transaction of ${items.length} items`);
  await transact(items, membershipConflict);
}

/** Ends a chunked sync: bumps the version (the membership changed) and drops the lock it holds. */
export async function releaseSyncLock(
  orgId: string,
  teamId: string,
  opId: string,
  ctx: { at: string; payloadHash: string; changed: boolean },
): Promise<void> {
  await ifConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.teamSyncState(orgId, teamId),
        UpdateExpression: ctx.changed
          ? 'SET #version = #version + :one, lastSyncAt = :at, lastPayloadHash = :hash REMOVE #lock'
          : 'REMOVE #lock',
        ConditionExpression: '#lock.opId = :op',
        ExpressionAttributeNames: ctx.changed
          ? { '#version': 'version', '#lock': 'lock' }
          : { '#lock': 'lock' },
        ExpressionAttributeValues: ctx.changed
          ? { ':one': 1, ':at': ctx.at, ':hash': ctx.payloadHash, ':op': opId }
          : { ':op': opId },
      }),
    ),
    syncConflict,
  );
}

/** First step of a team delete: marks it so syncs and renames refuse it from now on. */
export async function markTeamDeleting(orgId: string, teamId: string, at: string): Promise<void> {
  await ifConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.team(orgId, teamId),
        UpdateExpression: 'SET deletingAt = if_not_exists(deletingAt, :at)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    ),
    notFound,
  );
}

/** Applies removals of a team under deletion, unconditionally (each is an idempotent delete). */
export async function removeMembershipItems(
  orgId: string,
  teamId: string,
  ops: readonly MembershipOp[],
  at: string,
): Promise<void> {
  const items = ops.flatMap((op) => opItems(orgId, teamId, op, { at, actorId: '' }));
  if (items.length === 0) return;
  if (items.length > MAX_TRANSACTION_ITEMS) throw new Error(`transaction of ${items.length} items`);
  await transact(items);
}

/** Last step of a team delete: the team item and its sync state. */
export async function deleteTeamRecord(orgId: string, teamId: string): Promise<void> {
  await transact([
    { Delete: { TableName: tableName(), Key: keys.team(orgId, teamId) } },
    { Delete: { TableName: tableName(), Key: keys.teamSyncState(orgId, teamId) } },
  ]);
}

/** Pending invitations of an e-mail across the org's teams (GSI1). */
export async function findInvitationsByEmail(
  orgId: string,
  email: string,
): Promise<{ teamId: string; email: string }[]> {
  const index = keys.invitesByEmail(orgId, email, '');
  const res = await queryIndex('gsi1pk', 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)', {
    ':pk': index.gsi1pk,
    ':prefix': index.gsi1sk,
  });
  return (res.Items ?? []).map((i) => ({ teamId: String(i.teamId), email: String(i.email) }));
}

/**
 * Turns a pending invitation into a membership when the invited person becomes a known user: the
 * invitation is deleted (conditionally: a sync that cancelled it wins), the member and mirror
 * written and the team's version bumped, in one transaction. Answers whether it converted.
 */
export async function convertInvitation(
  orgId: string,
  teamId: string,
  user: { id: string; email: string },
  at: string,
): Promise<boolean> {
  const TableName = tableName();
  const items: TransactItem[] = [
    teamLiveCheck(orgId, teamId),
    {
      Delete: {
        TableName,
        Key: keys.teamInvite(orgId, teamId, user.email),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    {
      Update: {
        TableName,
        Key: keys.teamSyncState(orgId, teamId),
        UpdateExpression: `SET #version = if_not_exists(#version, :zero) + :one, ${syncStates.envelopeSet.expression}, teamId = :teamId`,
        ConditionExpression: 'attribute_not_exists(#lock)',
        ExpressionAttributeNames: { '#version': 'version', '#lock': 'lock' },
        ExpressionAttributeValues: {
          ':zero': 0,
          ':one': 1,
          ...syncStates.envelopeSet.values,
          ':teamId': teamId,
        },
      },
    },
    ...opItems(orgId, teamId, { kind: 'add', userId: user.id, email: user.email }, { at, actorId: user.id }),
  ];
  return transact(items, () => false);
}
