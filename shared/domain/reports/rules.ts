import { isAdmin, isTeamMember, type Principal } from '../../auth/principal';
import type { FieldIssue } from '../../errors';
import type { Report } from '../../model/reports';

/**
 * Who may do what with a report:
 * - PRIVATE reports are visible to their creator (and org admins) only; to others they do not exist.
 * - PUBLIC and TEMPLATE reports are visible to the whole organisation.
 * - Editing, archiving: admins; for a team report, members of the team (the creator too, while a
 *   member); for a report without a team, its creator.
 * - Duplicating a team report needs team membership (TEAM_MEMBER_REQUIRED).
 */
export { canEdit, canView } from '../common/sharing';

export function needsTeamMembershipToDuplicate(p: Principal, r: Pick<Report, 'teamId'>): boolean {
  return Boolean(r.teamId) && !isAdmin(p) && !isTeamMember(p, r.teamId as string);
}

/** Cross-field rules that a schema cannot see because they depend on the stored report. */
export function scheduleIssues(merged: Pick<Report, 'scheduledPeriod' | 'scheduledWeekday'>): FieldIssue[] {
  if (
    merged.scheduledPeriod === 'WEEKLY' &&
    (merged.scheduledWeekday === null || merged.scheduledWeekday === undefined)
  ) {
    return [
      {
        path: 'scheduledWeekday',
        message: 'A WEEKLY report needs a scheduledWeekday (0 = Sunday to 6 = Saturday)',
      },
    ];
  }
  return [];
}
