import { ensureTeam } from '../../../shared/db/teams-repo';
import { ensureUser } from '../../../shared/db/users-repo';
import type { Invitation } from '../../../shared/domain/teams/invitations';

/** Members `user_0…user_{n-1}` of `org` and the team `team_t` ("Data Platform"); answers the user ids. */
export async function seedOrg(org: string, users: number): Promise<string[]> {
  const createdAt = new Date().toISOString();
  const ids: string[] = [];
  for (let i = 0; i < users; i++) {
    const id = `user_${i}`;
    await ensureUser({
      id,
      organizationId: org,
      email: `u${i}@${org}.example`,
      name: id,
      role: 'member',
      createdAt,
    });
    ids.push(id);
  }
  await ensureTeam({ id: 'team_t', organizationId: org, name: 'Data Platform', createdAt });
  return ids;
}

export { adminOf } from '../../support/principals';

/** An IdP invitation adapter that records what it was asked to send. */
export function recordingInvitations(sent: Invitation[]) {
  return {
    configured: true,
    send: async (inv: Invitation) => {
      sent.push(inv);
      return { invitationId: `inv_${sent.length}` };
    },
  };
}
