import type { Principal } from '../../auth/principal';
import type { OutboxEntry } from '../../db/outbox-repo';
import { getTeamOperation, insertTeamOperation, updateTeamOperation } from '../../db/team-operations-repo';
import * as teamsRepo from '../../db/teams-repo';
import { ConflictError, NotFoundError, ShapedError } from '../../errors';
import { newId } from '../../ids';
import { log } from '../../log';
import type { SyncSummary, TeamOperation, TeamOperationKind, TeamOperationStatus } from '../../model/teams';
import { QUEUE } from '../../queues';
import { deliver } from '../billing/outbox';
import { defaultSyncDeps, performSync, type SyncDeps, type SyncHandOff } from './sync';
import { deleteTeam, finishTeamDeletion, resolveTeam } from './teams';

/** The queue of shared/queues.ts that the `team-operations` worker consumes. */
export const TEAM_OPERATIONS_QUEUE = QUEUE.teamOperations;

/** The SQS message: which operation to run. The operation item holds everything else. */
export interface TeamOperationMessage {
  orgId: string;
  teamId: string;
  operationId: string;
}

/**
 * Records an operation and asks the worker to run it: the operation item and an outbox entry in one
 * transaction, then the message is sent (if that send fails the outbox sweep sends it). Answers
 * false, sending nothing, when the operation was already recorded.
 */
export async function queueTeamOperation(op: TeamOperation): Promise<boolean> {
  const message: TeamOperationMessage = { orgId: op.orgId, teamId: op.teamId, operationId: op.operationId };
  const entry: OutboxEntry = {
    id: newId('obx'),
    orgId: op.orgId,
    queue: TEAM_OPERATIONS_QUEUE,
    body: JSON.stringify(message),
    createdAt: op.createdAt,
    attempts: 0,
  };
  if (!(await insertTeamOperation(op, entry))) return false;
  await deliver(entry);
  return true;
}

/** `SyncDeps.handOff` of the HTTP route: the sync becomes a queued operation. */
export async function handOffSync(request: SyncHandOff): Promise<void> {
  await queueTeamOperation({
    operationId: request.syncId,
    orgId: request.orgId,
    teamId: request.teamId,
    kind: 'sync',
    status: 'PENDING',
    actorId: request.principal.principalId,
    actorKind: request.principal.kind,
    createdAt: request.at,
    updatedAt: request.at,
    members: request.members,
    payloadHash: request.payloadHash,
  });
}

/** The dependencies of `POST /iac/teams/{id}/SYNC`: large changes are handed to the worker. */
export function routeSyncDeps(): SyncDeps {
  return { ...defaultSyncDeps(), handOff: handOffSync };
}

/**
 * `handOff` of `DELETE /iac/teams/{id}`: the rest of the delete becomes a queued operation. Its id
 * is derived from the team, so a repeated DELETE while it is queued answers the same operation;
 * after a failed one, a repeated DELETE queues a new one.
 */
export function handOffDelete(principal: Principal): (teamId: string, at: string) => Promise<string> {
  return async (teamId, at) => {
    const base: TeamOperation = {
      operationId: `tdel_${teamId}`,
      orgId: principal.orgId,
      teamId,
      kind: 'delete',
      status: 'PENDING',
      actorId: principal.principalId,
      actorKind: principal.kind,
      createdAt: at,
      updatedAt: at,
    };
    if (await queueTeamOperation(base)) return base.operationId;
    const existing = await getTeamOperation(principal.orgId, teamId, base.operationId);
    if (existing && (existing.status === 'PENDING' || existing.status === 'RUNNING'))
      return existing.operationId;
    const again = { ...base, operationId: newId('tdel') };
    await queueTeamOperation(again);
    return again.operationId;
  };
}

/** `DELETE /iac/teams/{id}` as the route runs it: a large team's removals go to the worker. */
export function deleteTeamFromRoute(principal: Principal, ref: string) {
  return deleteTeam(principal, ref, handOffDelete(principal));
}

/** What `GET /iac/teams/{id}/operations/{operationId}` answers. */
export interface TeamOperationView {
  operationId: string;
  kind: TeamOperationKind;
  teamId: string;
  status: TeamOperationStatus;
  createdAt: string;
  updatedAt: string;
  summary: SyncSummary | null;
  error: Record<string, unknown> | null;
}

/**
 * Reads an operation of the caller's organisation. `ref` is the team id, or the name of a team
 * that still exists (a deleted team is found by id only).
 */
export async function readTeamOperation(
  principal: Principal,
  ref: string,
  operationId: string,
): Promise<TeamOperationView> {
  const team = await resolveTeam(principal.orgId, ref);
  const teamId = 'code' in team ? ref : team.id;
  const op = await getTeamOperation(principal.orgId, teamId, operationId);
  if (!op) throw new NotFoundError('NOT_FOUND');
  return {
    operationId: op.operationId,
    kind: op.kind,
    teamId: op.teamId,
    status: op.status,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
    summary: op.summary ?? null,
    error: op.error ?? null,
  };
}

/** Parses a message; anything else is an error (the message then ends in the DLQ). */
export function parseTeamOperationMessage(body: string): TeamOperationMessage {
  const value = JSON.parse(body) as Partial<TeamOperationMessage> | null;
  for (const key of ['orgId', 'teamId', 'operationId'] as const) {
    if (typeof value?.[key] !== 'string' || value[key] === '') {
      throw new Error(`team operation message without ${key}`);
    }
  }
  return value as TeamOperationMessage;
}

export interface RunOptions {
  now: () => Date;
  /** The last delivery SQS will make: an unexpected failure is then recorded as FAILED. */
  lastAttempt: boolean;
  /** The sync's dependencies (tests replace the invitation sender). */
  syncDeps?: SyncDeps;
}

/**
 * Runs one queued operation, idempotently: a finished one is not run again, a redelivered running
 * one is run again from the state reached (a sync re-plans against the membership, a delete
 * removes what is left). A sync that fails for a reason the route would have answered (its
 * `{error, reason, details, summary}`) is recorded FAILED with that body and frees the team's
 * lock; any other failure is thrown so SQS retries it, and recorded FAILED on the last attempt.
 */
export async function runTeamOperation(
  message: TeamOperationMessage,
  options: RunOptions,
): Promise<TeamOperationStatus | 'MISSING'> {
  const { orgId, teamId, operationId } = message;
  const op = await getTeamOperation(orgId, teamId, operationId);
  if (!op) {
    log.warn('team operation not found; nothing to run', { ...message });
    return 'MISSING';
  }
  if (op.status === 'SUCCEEDED' || op.status === 'FAILED') return op.status;
  if (!(await updateTeamOperation(orgId, teamId, operationId, { status: 'RUNNING', at: iso(options) }))) {
    return (await getTeamOperation(orgId, teamId, operationId))?.status ?? 'MISSING';
  }
  try {
    let summary: SyncSummary | undefined;
    if (op.kind === 'sync') {
      const deps: SyncDeps = {
        ...(options.syncDeps ?? defaultSyncDeps()),
        handOff: undefined,
        // The lock the route took carries the operation id: the worker takes it over as its own.
        newOpId: () => operationId,
      };
      const principal = { orgId, principalId: op.actorId, kind: op.actorKind };
      ({ summary } = await performSync(principal, teamId, { members: op.members ?? [] }, deps));
    } else {
      await finishTeamDeletion(orgId, teamId);
    }
    await updateTeamOperation(orgId, teamId, operationId, {
      status: 'SUCCEEDED',
      at: iso(options),
      ...(summary ? { outcome: { summary } } : {}),
    });
    log.info('team operation done', { ...message, kind: op.kind, ...summary });
    return 'SUCCEEDED';
  } catch (error) {
    const expected = error instanceof ShapedError;
    if (!expected && !options.lastAttempt) throw error;
    const body = (expected ? error.body() : { error: 'INTERNAL_SERVER_ERROR' }) as Record<string, unknown>;
    const failedSummary = body.summary as SyncSummary | undefined;
    await updateTeamOperation(orgId, teamId, operationId, {
      status: 'FAILED',
      at: iso(options),
      outcome: { error: body, ...(failedSummary ? { summary: failedSummary } : {}) },
    });
    if (op.kind === 'sync') await releaseOwnLock(op, options);
    log.warn('team operation failed', { ...message, kind: op.kind, error });
    if (!expected) throw error;
    return 'FAILED';
  }
}

/** Frees the team's sync lock if this operation still holds it (another sync may then run). */
async function releaseOwnLock(op: TeamOperation, options: RunOptions): Promise<void> {
  try {
    await teamsRepo.releaseSyncLock(op.orgId, op.teamId, op.operationId, {
      at: iso(options),
      payloadHash: op.payloadHash ?? '',
      changed: false,
    });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
}

const iso = (options: RunOptions) => options.now().toISOString();
