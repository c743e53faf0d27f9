import { isAdmin, isTeamMember, type Principal } from '../../auth/principal';
import { getScopes } from '../../db/dashboards-repo';
import { getTeam } from '../../db/teams-repo';
import { ForbiddenError } from '../../errors';
import { invalid } from './body-checks';
import { scopeDecision } from './rules';

/**
 * Team and scope assignment, checked against the caller's membership (spec: "Authentication" 6):
 * - team: admins may assign any existing team (unknown: 400); members only a team they are in
 *   (otherwise, or unknown: 403 TEAM_MEMBER_REQUIRED);
 * - scope: see `scopeDecision`; a member is refused with 403 SCOPE_ACCESS_REQUIRED.
 */
export async function assertAssignable(
  principal: Principal,
  teamId: string | null | undefined,
  scopes: { scopeId: string; path: string }[],
): Promise<void> {
  if (teamId) {
    const admin = isAdmin(principal);
    if (!admin && !isTeamMember(principal, teamId)) throw new ForbiddenError('TEAM_MEMBER_REQUIRED');
    const team = await getTeam(principal.orgId, teamId);
    // A team being deleted (`deletingAt`) can no longer be assigned.
    if (!team || (team as { deletingAt?: string }).deletingAt) {
      if (admin) throw invalid('teamId', `unknown team ${teamId}`);
      throw new ForbiddenError('TEAM_MEMBER_REQUIRED');
    }
  }
  await assertScopesAssignable(principal, scopes);
}

/**
 * The scope half of `assertAssignable` (see `scopeDecision`): an unknown scope is 400 naming its
 * path for an admin, 403 SCOPE_ACCESS_REQUIRED for a member, as is a scope tied to teams the member
 * is not in. Also the check of a cost alert's `scopeId` (shared/domain/alerts/service.ts).
 */
export async function assertScopesAssignable(
  principal: Principal,
  scopes: readonly { scopeId: string; path: string }[],
): Promise<void> {
  if (!scopes.length) return;
  const found = await getScopes(
    principal.orgId,
    scopes.map((s) => s.scopeId),
  );
  for (const ref of scopes) {
    const decision = scopeDecision(principal, found.get(ref.scopeId));
    if (decision === 'ok') continue;
    if (decision === 'unknown' && isAdmin(principal)) throw invalid(ref.path, `unknown scope ${ref.scopeId}`);
    throw new ForbiddenError('SCOPE_ACCESS_REQUIRED');
  }
}
