/** Team membership as the sync sees it. A membership is two items (team member + principal mirror). */
export interface TeamMember {
  userId: string;
  email?: string;
  addedAt: string;
}

/** An e-mail unknown to the organisation, invited through the identity provider, pending. */
export interface TeamInvitation {
  email: string;
  invitedAt: string;
  invitedById: string;
  invitationId?: string;
}

/** The lock of a chunked sync: who holds it, for which desired member set, and until when. */
export interface SyncLock {
  opId: string;
  payloadHash: string;
  startedAt: string;
  leaseUntil: string;
}

export interface TeamMembership {
  members: TeamMember[];
  invites: TeamInvitation[];
  /** Bumped by every applied sync; a sync's write is conditional on the version it planned from. */
  version: number;
  lock?: SyncLock;
  lastSyncAt?: string;
}

export type MembershipOp =
  | { kind: 'remove'; userId: string }
  | { kind: 'cancelInvite'; email: string }
  | { kind: 'add'; userId: string; email?: string }
  | { kind: 'invite'; email: string; invitationId?: string };

/** How many transaction items an operation writes: a membership is two items (member + mirror). */
export function opItemCount(op: MembershipOp): number {
  return op.kind === 'add' || op.kind === 'remove' ? 2 : 1;
}

export interface SyncSummary {
  added: number;
  removed: number;
  invited: number;
}

export type TeamOperationKind = 'sync' | 'delete';
export type TeamOperationStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/**
 * Work on a team too large for one HTTP request (a sync past one transaction, the delete of a
 * large team), run by the `team-operations` worker. Its status is what the caller polls.
 */
export interface TeamOperation {
  operationId: string;
  orgId: string;
  teamId: string;
  kind: TeamOperationKind;
  status: TeamOperationStatus;
  /** Who asked for it (the worker acts on their behalf: invitations name them). */
  actorId: string;
  actorKind: 'user' | 'org';
  createdAt: string;
  updatedAt: string;
  /** A sync's desired members, as validated by the route. */
  members?: { userId?: string | null; email?: string | null }[];
  /** A sync's desired-member hash (the lock it holds carries the same). */
  payloadHash?: string;
  summary?: SyncSummary;
  /** A failed operation's error body, in the shape the route would have answered with. */
  error?: Record<string, unknown>;
}
