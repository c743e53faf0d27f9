import type { Principal } from '../../auth/principal';
import * as teamsRepo from '../../db/teams-repo';
import { ConflictError, type FieldIssue, NotFoundError } from '../../errors';
import { newId } from '../../ids';
import { log } from '../../log';
import type { MembershipOp, TeamInvitation, TeamMember, TeamMembership } from '../../model/teams';
import type { CreateTeamInput, PatchTeamInput } from './schemas';
import { chunkOps, itemCount } from './sync-plan';

export interface TeamRefError {
  code: 'NOT_FOUND' | 'AMBIGUOUS_TEAM_NAME';
  status: 404 | 409;
  reason: string;
  details: FieldIssue[];
}

interface TeamLookup {
  getTeam: (orgId: string, teamId: string) => Promise<teamsRepo.Team | undefined>;
  findTeamsByName: (orgId: string, name: string) => Promise<teamsRepo.Team[]>;
}

const defaultLookup: TeamLookup = {
  getTeam: teamsRepo.getTeamConsistent,
  findTeamsByName: teamsRepo.findTeamsByName,
};

/**
 * Finds a team of the caller's organisation by id, else by name, case-insensitively. An id wins
 * over a name. Another organisation's team, or one being deleted, is not found; a name shared by
 * several teams is ambiguous (the caller must use the id).
 */
export async function resolveTeam(
  orgId: string,
  ref: string,
  lookup: TeamLookup = defaultLookup,
): Promise<teamsRepo.Team | TeamRefError> {
  const byId = await lookup.getTeam(orgId, ref);
  if (byId && !byId.deletingAt) return byId;
  const byName = (await lookup.findTeamsByName(orgId, ref)).filter((t) => !t.deletingAt);
  if (byName.length === 1) return byName[0] as teamsRepo.Team;
  if (byName.length > 1) {
    return {
      code: 'AMBIGUOUS_TEAM_NAME',
      status: 409,
      reason: `${byName.length} teams are named "${ref}" (names match case-insensitively); use the team id`,
      details: byName.map((t) => ({ path: 'id', message: `matches team ${t.id} (${t.name})` })),
    };
  }
  return {
    code: 'NOT_FOUND',
    status: 404,
    reason: `team ${ref} not found`,
    details: [{ path: 'id', message: 'no team has this id or name' }],
  };
}

/** `resolveTeam` for the plain routes: 404 `{error:'NOT_FOUND'}` or 409 `{error:'AMBIGUOUS_TEAM_NAME'}`. */
export async function requireTeam(orgId: string, ref: string): Promise<teamsRepo.Team> {
  const found = await resolveTeam(orgId, ref);
  if (!('code' in found)) return found;
  if (found.code === 'AMBIGUOUS_TEAM_NAME') throw new ConflictError('AMBIGUOUS_TEAM_NAME');
  throw new NotFoundError('NOT_FOUND');
}

export interface TeamView {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  updatedAt: string;
  createdById: string | null;
}

export function teamView(t: teamsRepo.Team): TeamView {
  return {
    id: t.id,
    name: t.name,
    description: t.description ?? '',
    createdAt: t.createdAt,
    updatedAt: t.updatedAt ?? t.createdAt,
    createdById: t.createdById ?? null,
  };
}

async function assertNameFree(orgId: string, name: string, exceptTeamId?: string): Promise<void> {
  const same = (await teamsRepo.findTeamsByName(orgId, name)).filter(
    (t) => t.id !== exceptTeamId && !t.deletingAt,
  );
  if (same.length > 0) throw new ConflictError('TEAM_NAME_TAKEN');
}

export async function createTeam(principal: Principal, input: CreateTeamInput): Promise<TeamView> {
  await assertNameFree(principal.orgId, input.name);
  const at = new Date().toISOString();
  const team: teamsRepo.Team = {
    id: newId('team'),
    organizationId: principal.orgId,
    name: input.name,
    description: input.description,
    createdById: principal.principalId,
    createdAt: at,
    updatedAt: at,
  };
  await teamsRepo.insertTeam(team);
  return teamView(team);
}

export async function listTeams(
  principal: Principal,
  opts: { limit: number; cursor?: string },
): Promise<{ items: TeamView[]; nextCursor: string | null }> {
  const page = await teamsRepo.listTeams(principal.orgId, opts.limit, opts.cursor);
  return { items: page.items.filter((t) => !t.deletingAt).map(teamView), nextCursor: page.nextCursor };
}

export interface TeamDetails extends TeamView {
  members: { userId: string; email: string | null; addedAt: string }[];
  invitations: { email: string; invitedAt: string }[];
  lastSyncAt: string | null;
}

/** A team with its members and pending invitations (any member of the org may read it). */
export async function readTeam(principal: Principal, ref: string): Promise<TeamDetails> {
  const team = await requireTeam(principal.orgId, ref);
  const membership = await teamsRepo.readMembership(principal.orgId, team.id);
  return {
    ...teamView(team),
    members: membership.members.map((m: TeamMember) => ({
      userId: m.userId,
      email: m.email ?? null,
      addedAt: m.addedAt,
    })),
    invitations: membership.invites.map((i: TeamInvitation) => ({ email: i.email, invitedAt: i.invitedAt })),
    lastSyncAt: membership.lastSyncAt ?? null,
  };
}

export async function patchTeam(principal: Principal, ref: string, input: PatchTeamInput): Promise<TeamView> {
  const team = await requireTeam(principal.orgId, ref);
  if (input.name !== undefined && input.name.toLowerCase() !== team.name.toLowerCase())
    await assertNameFree(principal.orgId, input.name, team.id);
  const updated = await teamsRepo.updateTeam(
    principal.orgId,
    team.id,
    {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    },
    new Date().toISOString(),
  );
  return teamView(updated);
}

/** The answer of `DELETE /iac/teams/{id}`: done, or 202 with the operation to poll. */
export type DeleteTeamResult =
  | { id: string; deleted: true }
  | { id: string; deleted: true; status: 'PENDING'; operationId: string };

/**
 * Deletes a team: marks it (syncs and renames then refuse it, reads hide it), removes every
 * membership (member items and principal mirrors, so the permission drops on the next request)
 * and invitation in transactions of at most 100 items, then deletes the team. A crash part-way is
 * finished by repeating the DELETE: the marked team is still found by id.
 *
 * With `handOff` (the HTTP route), a team whose removals do not fit one transaction is only
 * marked here; the rest runs in the `team-operations` worker (`finishTeamDeletion`), and the
 * answer names the operation to poll.
 */
export async function deleteTeam(
  principal: Principal,
  ref: string,
  handOff?: (teamId: string, at: string) => Promise<string>,
): Promise<DeleteTeamResult> {
  const orgId = principal.orgId;
  const byId = await teamsRepo.getTeamConsistent(orgId, ref);
  const team = byId ?? (await requireTeam(orgId, ref));
  const at = new Date().toISOString();
  await teamsRepo.markTeamDeleting(orgId, team.id, at);
  const membership = await teamsRepo.readMembership(orgId, team.id);
  const ops = removalsOf(membership);
  if (handOff && itemCount(ops) > teamsRepo.MAX_TRANSACTION_ITEMS) {
    const operationId = await handOff(team.id, at);
    log.info('team delete handed to the worker', { orgId, teamId: team.id, operationId });
    return { id: team.id, deleted: true, status: 'PENDING', operationId };
  }
  await removeAndDelete(orgId, team.id, ops, at);
  log.info('team deleted', { orgId, teamId: team.id, members: membership.members.length });
  return { id: team.id, deleted: true };
}

/**
 * The rest of a delete, in the worker: removes what is left of a marked team's membership and the
 * team. Idempotent: a team already gone is done; one not marked for deletion is left alone.
 */
export async function finishTeamDeletion(orgId: string, teamId: string): Promise<void> {
  const team = await teamsRepo.getTeamConsistent(orgId, teamId);
  if (!team) return;
  if (!team.deletingAt) throw new Error(`team ${teamId} is not marked for deletion`);
  const membership = await teamsRepo.readMembership(orgId, teamId);
  await removeAndDelete(orgId, teamId, removalsOf(membership), new Date().toISOString());
  log.info('team deleted', { orgId, teamId, members: membership.members.length });
}

function removalsOf(membership: TeamMembership): MembershipOp[] {
  return [
    ...membership.members.map((m) => ({ kind: 'remove' as const, userId: m.userId })),
    ...membership.invites.map((i) => ({ kind: 'cancelInvite' as const, email: i.email })),
  ];
}

async function removeAndDelete(
  orgId: string,
  teamId: string,
  ops: MembershipOp[],
  at: string,
): Promise<void> {
  for (const chunk of chunkOps(ops, teamsRepo.MAX_TRANSACTION_ITEMS)) {
    await teamsRepo.removeMembershipItems(orgId, teamId, chunk, at);
  }
  await teamsRepo.deleteTeamRecord(orgId, teamId);
}
