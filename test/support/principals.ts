import type { Principal } from '../../shared/auth/principal';

/** A signed-in org admin of `orgId` (a user, in no team), as the credential check hands it to the domain. */
export const adminOf = (orgId: string, principalId = 'user_admin'): Principal => ({
  orgId,
  principalId,
  kind: 'user',
  role: 'admin',
  teamIds: [],
});

/** A signed-in member of `orgId` in `teamIds`. */
export const memberOf = (orgId: string, teamIds: string[] = [], principalId = 'user_member'): Principal => ({
  orgId,
  principalId,
  kind: 'user',
  role: 'member',
  teamIds,
});
