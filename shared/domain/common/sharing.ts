import { isAdmin, isTeamMember, type Principal } from '../../auth/principal';
import type { VisibilityType } from '../../model/enum-schemas';

/** What the sharing rules read of a dashboard or a report. */
export interface Shared {
  type: VisibilityType;
  createdById: string;
  teamId: string | null;
}

/**
 * Whether `p` sees a dashboard or a report: org admins and its creator always; anyone in the
 * organisation unless it is PRIVATE (to whom it does not exist).
 */
export function canView(p: Principal, r: Pick<Shared, 'type' | 'createdById'>): boolean {
  return isAdmin(p) || r.createdById === p.principalId || r.type !== 'PRIVATE';
}

/**
 * Whether `p` may change a dashboard or a report: admins; for a team one, members of the team (the
 * creator too, while a member; a PRIVATE one only its creator); for one without a team, its creator.
 */
export function canEdit(p: Principal, r: Pick<Shared, 'type' | 'createdById' | 'teamId'>): boolean {
  if (isAdmin(p)) return true;
  if (r.teamId) return isTeamMember(p, r.teamId) && (r.createdById === p.principalId || r.type !== 'PRIVATE');
  return r.createdById === p.principalId;
}
