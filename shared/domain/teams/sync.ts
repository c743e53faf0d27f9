import type { Principal } from '../../auth/principal';
import * as teamsRepo from '../../db/teams-repo';
import * as usersRepo from '../../db/users-repo';
import { ConflictError, type FieldIssue, NotFoundError, ShapedError } from '../../errors';
import { newId } from '../../ids';
import { log } from '../../log';
import type { MembershipOp, SyncLock, SyncSummary, TeamMembership } from '../../model/teams';
import { mapLimit } from '../../pool';
import {
  httpInvitationSender,
  type InvitationError,
  type InvitationSender,
  invitationKey,
} from './invitations';
import type { SyncTeamInput } from './schemas';
import {
  chunkOps,
  type DesiredMembership,
  desiredHash,
  itemCount,
  type KnownUser,
  planSync,
  resolveDesired,
} from './sync-plan';
import { resolveTeam, type TeamRefError } from './teams';

/** Everything the sync touches outside itself, injectable so the orchestration is testable alone. */
export interface SyncDeps {
  getTeam: (orgId: string, teamId: string) => Promise<teamsRepo.Team | undefined>;
  findTeamsByName: (orgId: string, name: string) => Promise<teamsRepo.Team[]>;
  getUsers: (orgId: string, ids: readonly string[]) => Promise<Map<string, KnownUser>>;
  findUsersByEmail: (orgId: string, email: string) => Promise<KnownUser[]>;
  readMembership: (orgId: string, teamId: string) => Promise<TeamMembership>;
  applyMembership: typeof teamsRepo.applyMembership;
  acquireSyncLock: typeof teamsRepo.acquireSyncLock;
  applyMembershipChunk: typeof teamsRepo.applyMembershipChunk;
  releaseSyncLock: typeof teamsRepo.releaseSyncLock;
  invitations: InvitationSender;
  now: () => Date;
  newOpId: () => string;
  /** Items per transaction (DynamoDB's limit is 100); lowered in tests to exercise chunking. */
  maxTransactionItems: number;
  /**
   * With `handOff`: the largest change applied in the request (`SYNC_INLINE_LIMITS`); lowered in
   * tests to exercise the hand-off.
   */
  inlineLimits: { items: number; invitations: number };
  /**
   * Set by the HTTP route: a change past `inlineLimits` is not applied in the request but handed
   * to the `team-operations` worker (see `handOffSync`), under the team's sync lock. Unset (the
   * worker, scripts), every change is applied here, in chunks when large.
   */
  handOff?: (request: SyncHandOff) => Promise<void>;
}

/** What the route hands to the worker: who asked, for which team, and the validated members. */
export interface SyncHandOff {
  syncId: string;
  orgId: string;
  teamId: string;
  principal: Pick<Principal, 'principalId' | 'kind'>;
  members: SyncTeamInput['members'];
  payloadHash: string;
  at: string;
}

/**
 * The answer of `POST /iac/teams/{id}/SYNC`: the spec's `{success: true}` once applied, or, for a
 * change handed to the worker, 202 with the id to poll (`GET /iac/teams/{id}/operations/{syncId}`).
 */
export type SyncResult = { success: true } | { success: true; status: 'PENDING'; syncId: string };

export function defaultSyncDeps(): SyncDeps {
  return {
    getTeam: teamsRepo.getTeamConsistent,
    findTeamsByName: teamsRepo.findTeamsByName,
    getUsers: usersRepo.getUsers,
    findUsersByEmail: usersRepo.findUsersByEmail,
    readMembership: teamsRepo.readMembership,
    applyMembership: teamsRepo.applyMembership,
    acquireSyncLock: teamsRepo.acquireSyncLock,
    applyMembershipChunk: teamsRepo.applyMembershipChunk,
    releaseSyncLock: teamsRepo.releaseSyncLock,
    invitations: httpInvitationSender(),
    now: () => new Date(),
    newOpId: () => newId('sync'),
    maxTransactionItems: teamsRepo.MAX_TRANSACTION_ITEMS,
    inlineLimits: SYNC_INLINE_LIMITS,
  };
}

/**
 * The largest change `POST /iac/teams/{id}/SYNC` applies in the request, answering the spec's
 * `{success: true}`; past either bound it is handed to the worker (202 PENDING). Items are the
 * table items the plan writes or deletes (2 per member added or removed, 1 per invitation), written
 * in transactions of up to 98, one after another under the team's sync lock. 6,000 items is 3,000
 * membership changes: every sync of up to 2,000 members (`MAX_SYNC_MEMBERS`) but the replacement
 * of most of a large team by others. Measured against DynamoDB Local on a loaded 2-core machine
 * (docs/admin.md#team-sync): 2,000 members into an empty team 9.2 s, 3,000 changes about 14 s,
 * 5,000 changes 15.5-24 s, against the route's 29 s. Invitations are calls to the identity
 * provider (4 at a time, up to 5 s each), so at most 40 are sent in the request.
 */
export const SYNC_INLINE_LIMITS = { items: 6_000, invitations: 40 } as const;

/** How long a chunked sync's lock holds without progress before another sync may take it over. */
export const SYNC_LEASE_MS = 60_000;
/**
 * The lease a sync handed to the worker holds before the worker starts: long enough for the queue
 * and the worker's invitations, short enough that a lost message does not block the team for long.
 */
export const QUEUED_SYNC_LEASE_MS = 15 * 60_000;
const ATTEMPTS = 3;
const LOOKUP_CONCURRENCY = 8;
const ZERO: SyncSummary = { added: 0, removed: 0, invited: 0 };

/** A failure in the team-sync shape `{error, reason, details, summary}`. */
export function syncError(
  status: number,
  error: string,
  reason: string,
  details: FieldIssue[] = [],
  summary: SyncSummary = ZERO,
): ShapedError {
  return new ShapedError(status, { error, reason, details, summary });
}

function fromTeamRefError(e: TeamRefError): ShapedError {
  return syncError(e.status, e.code, e.reason, e.details);
}

/** Looks up the users the payload names: by id (batch), and by e-mail for entries without an id. */
async function lookUpUsers(orgId: string, members: SyncTeamInput['members'], deps: SyncDeps) {
  const ids = members.flatMap((m) => (m.userId ? [m.userId] : []));
  const emails = [
    ...new Set(members.flatMap((m) => (!m.userId && m.email ? [m.email.trim().toLowerCase()] : []))),
  ];
  const [byId, found] = await Promise.all([
    deps.getUsers(orgId, ids),
    mapLimit(emails, LOOKUP_CONCURRENCY, (e) => deps.findUsersByEmail(orgId, e)),
  ]);
  const byEmail = new Map<string, KnownUser[]>();
  for (const [i, e] of emails.entries()) byEmail.set(e, found[i] ?? []);
  return { byId, byEmail };
}

/**
 * `POST /iac/teams/{id}/SYNC`: makes the team's members exactly the payload's.
 *
 * 1. The team is found by id, else by case-insensitive name (several matches: 409).
 * 2. Each entry resolves to a known user or, for an unknown e-mail, an invitation. Any invalid
 *    entry fails the whole call with every issue listed and the would-be summary; nothing written.
 * 3. The plan (removals first, then additions and invitations) is computed against the membership
 *    read strongly consistently; an empty plan writes nothing (a repeated call changes nothing).
 * 4. New invitations are sent to the identity provider (idempotency keys make a retry safe); any
 *    failure fails the call before the table is touched.
 * 5. Up to 98 items the change is one transaction, conditional on the membership version read in 3.
 *    Past that it is applied in chunks under a lease lock held in the team's sync-state item; see
 *    `applyChunked`. A concurrent change makes the transaction fail, and the sync re-plans. The
 *    route applies changes up to `SYNC_INLINE_LIMITS` so; a larger one goes to the worker.
 */
export async function syncTeam(
  principal: Principal,
  ref: string,
  input: SyncTeamInput,
  deps: SyncDeps = defaultSyncDeps(),
): Promise<SyncResult> {
  return (await performSync(principal, ref, input, deps)).result;
}

/**
 * `syncTeam` with what the worker records: the summary of the change, and the team it resolved.
 * A change handed off answers `PENDING` with the summary planned.
 */
export async function performSync(
  principal: Pick<Principal, 'orgId' | 'principalId' | 'kind'>,
  ref: string,
  input: SyncTeamInput,
  deps: SyncDeps = defaultSyncDeps(),
): Promise<{ result: SyncResult; summary: SyncSummary; teamId: string }> {
  const orgId = principal.orgId;
  const resolved = await resolveTeam(orgId, ref, deps);
  if ('code' in resolved) throw fromTeamRefError(resolved);
  const team = resolved;
  const directory = await lookUpUsers(orgId, input.members, deps);
  const desired = resolveDesired(input.members, directory);
  const payloadHash = desiredHash(desired);
  const sent = new Map<string, string | undefined>();
  let summary: SyncSummary = ZERO;

  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await deps.readMembership(orgId, team.id);
    const plan = planSync(desired, current);
    summary = plan.summary;
    if (desired.issues.length > 0) {
      const first = desired.issues[0] as FieldIssue;
      throw syncError(400, 'VALIDATION_ERROR', `${first.path}: ${first.message}`, desired.issues, summary);
    }
    const now = deps.now();
    const lockHeldByOther =
      current.lock && current.lock.payloadHash !== payloadHash && current.lock.leaseUntil > now.toISOString();
    if (lockHeldByOther) {
      throw syncError(
        409,
        'SYNC_IN_PROGRESS',
        'another sync of this team is being applied; retry when it has finished',
        [],
        summary,
      );
    }
    const at = now.toISOString();
    const done = { result: { success: true } as SyncResult, summary, teamId: team.id };
    try {
      if (plan.ops.length === 0) {
        // Nothing to change. A lock left by a crashed chunked sync that had finished its writes is dropped.
        if (current.lock)
          await deps.releaseSyncLock(orgId, team.id, current.lock.opId, { at, payloadHash, changed: true });
        return done;
      }
      const overhead = teamsRepo.TRANSACTION_OVERHEAD_ITEMS;
      const expect = { version: current.version, ...(current.lock ? { lockOpId: current.lock.opId } : {}) };
      const items = itemCount(plan.ops);
      const large = items + overhead > deps.maxTransactionItems;
      const newInvitations = plan.ops.filter((op) => op.kind === 'invite' && !sent.has(op.email)).length;
      const pastInline = items > deps.inlineLimits.items || newInvitations > deps.inlineLimits.invitations;
      if (deps.handOff && pastInline) {
        const queued = current.lock?.payloadHash === payloadHash && current.lock.leaseUntil > at;
        if (queued) {
          // The same members are already being applied (a repeated request): the same answer.
          return { ...done, result: { success: true, status: 'PENDING', syncId: current.lock!.opId } };
        }
        requireInvitations(plan.ops, deps, summary);
        const syncId = deps.newOpId();
        const leaseUntil = new Date(now.getTime() + QUEUED_SYNC_LEASE_MS).toISOString();
        await deps.acquireSyncLock(
          orgId,
          team.id,
          { opId: syncId, payloadHash, startedAt: at, leaseUntil },
          expect,
          at,
        );
        try {
          await deps.handOff({
            syncId,
            orgId,
            teamId: team.id,
            principal: { principalId: principal.principalId, kind: principal.kind },
            members: input.members,
            payloadHash,
            at,
          });
        } catch (error) {
          // Nothing was queued: free the team at once rather than when the lease runs out.
          await deps
            .releaseSyncLock(orgId, team.id, syncId, { at, payloadHash, changed: false })
            .catch(() => undefined);
          throw error;
        }
        log.info('team sync handed to the worker', { orgId, teamId: team.id, syncId, ...summary });
        return { ...done, result: { success: true, status: 'PENDING', syncId } };
      }
      const ops = await sendInvitations(principal, team, current, plan.ops, sent, deps, summary);
      if (!large) {
        await deps.applyMembership(orgId, team.id, ops, expect, {
          at,
          actorId: principal.principalId,
          payloadHash,
        });
      } else {
        await applyChunked(
          orgId,
          team.id,
          ops,
          expect,
          { at, actorId: principal.principalId, payloadHash },
          deps,
        );
      }
      log.info('team synced', { orgId, teamId: team.id, ...summary, attempt });
      return done;
    } catch (error) {
      if (error instanceof NotFoundError)
        throw syncError(404, 'NOT_FOUND', `team ${ref} not found`, [{ path: 'id', message: 'unknown team' }]);
      if (error instanceof ConflictError && error.message === 'SYNC_CONFLICT') continue;
      throw error;
    }
  }
  throw syncError(
    409,
    'SYNC_CONFLICT',
    'the team membership kept changing while this sync was applied; retry',
    [],
    summary,
  );
}

/** A plan that invites needs an identity provider to invite with: 503 before anything is written. */
function requireInvitations(ops: readonly MembershipOp[], deps: SyncDeps, summary: SyncSummary): void {
  const invites = ops.flatMap((op) => (op.kind === 'invite' ? [op.email] : []));
  if (invites.length > 0 && !deps.invitations.configured) {
    throw syncError(
      503,
      'INVITATIONS_UNAVAILABLE',
      'unknown e-mails need an invitation, but no identity provider is configured',
      invites.map((email) => ({ path: 'members', message: `${email} is not a user of the organisation` })),
      summary,
    );
  }
}

/** Sends the plan's new invitations (bounded concurrency) and answers the ops with their ids. */
async function sendInvitations(
  principal: Pick<Principal, 'orgId' | 'principalId'>,
  team: teamsRepo.Team,
  current: TeamMembership,
  ops: MembershipOp[],
  sent: Map<string, string | undefined>,
  deps: SyncDeps,
  summary: SyncSummary,
): Promise<MembershipOp[]> {
  const pending = ops.flatMap((op) => (op.kind === 'invite' && !sent.has(op.email) ? [op.email] : []));
  requireInvitations(
    ops.filter((op) => op.kind !== 'invite' || pending.includes(op.email)),
    deps,
    summary,
  );
  const failures: FieldIssue[] = [];
  await mapLimit(pending, 4, async (email) => {
    try {
      const { invitationId } = await deps.invitations.send({
        orgId: principal.orgId,
        teamId: team.id,
        teamName: team.name,
        email,
        invitedById: principal.principalId,
        idempotencyKey: invitationKey(principal.orgId, team.id, email, current.version),
      });
      sent.set(email, invitationId);
    } catch (error) {
      log.warn('invitation failed', { teamId: team.id, error });
      failures.push({ path: 'members', message: `${email}: ${(error as InvitationError).message}` });
    }
  });
  if (failures.length > 0) {
    throw syncError(
      502,
      'INVITATION_FAILED',
      'the identity provider did not accept every invitation; nothing was changed',
      failures,
      summary,
    );
  }
  return ops.map((op) => {
    if (op.kind !== 'invite') return op;
    const invitationId = sent.get(op.email);
    return invitationId ? { ...op, invitationId } : op;
  });
}

/**
 * A change past one transaction: take the team's sync lock (from the planned version), apply the
 * operations in transactions of at most 100 items each checking the lock and extending its lease,
 * then bump the version and drop the lock. Removals go first, so at every moment the membership
 * lies between (old ∩ new) and new: a chunked sync never grants anything the new list does not.
 * A crash leaves the lock: the same sync repeated takes it over at once and re-plans from the
 * state reached (every operation is an idempotent put or delete, so nothing is applied twice in
 * effect); a different sync waits for the lease to expire (409 SYNC_IN_PROGRESS meanwhile).
 */
async function applyChunked(
  orgId: string,
  teamId: string,
  ops: MembershipOp[],
  expect: { version: number; lockOpId?: string },
  ctx: { at: string; actorId: string; payloadHash: string },
  deps: SyncDeps,
): Promise<void> {
  const lease = () => new Date(deps.now().getTime() + SYNC_LEASE_MS).toISOString();
  const lock: SyncLock = {
    opId: deps.newOpId(),
    payloadHash: ctx.payloadHash,
    startedAt: ctx.at,
    leaseUntil: lease(),
  };
  await deps.acquireSyncLock(orgId, teamId, lock, expect, deps.now().toISOString());
  const chunks = chunkOps(ops, deps.maxTransactionItems - teamsRepo.TRANSACTION_OVERHEAD_ITEMS);
  for (const chunk of chunks) {
    await deps.applyMembershipChunk(orgId, teamId, chunk, { opId: lock.opId, leaseUntil: lease() }, ctx);
  }
  await deps.releaseSyncLock(orgId, teamId, lock.opId, {
    at: ctx.at,
    payloadHash: ctx.payloadHash,
    changed: true,
  });
  log.info('chunked team sync applied', { orgId, teamId, chunks: chunks.length });
}

export type { DesiredMembership };
