import type { Principal } from '../../auth/principal';
import { convertInvitation, findInvitationsByEmail } from '../../db/teams-repo';
import * as usersRepo from '../../db/users-repo';
import { ConflictError } from '../../errors';
import { log } from '../../log';
import type { PutUserInput } from './schemas';

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  createdAt: string;
  updatedAt: string;
}

const view = (u: usersRepo.User): UserView => ({
  id: u.id,
  email: u.email,
  name: u.name ?? '',
  role: u.role === 'admin' ? 'admin' : 'member',
  createdAt: u.createdAt,
  updatedAt: u.updatedAt ?? u.createdAt,
});

export async function listUsers(
  principal: Principal,
  opts: { limit: number; cursor?: string },
): Promise<{ items: UserView[]; nextCursor: string | null }> {
  const page = await usersRepo.listUsers(principal.orgId, opts.limit, opts.cursor);
  return { items: page.items.map(view), nextCursor: page.nextCursor };
}

/**
 * `PUT /iac/users/{id}`: registers a user of the identity provider with the organisation, or
 * updates their e-mail, name or role (effective on their next request). An omitted `name` or
 * `role` keeps the stored one (a new user: `""` and `member`). An e-mail already used by
 * another user is a 409. Pending team invitations of the e-mail become memberships right away,
 * each in its own transaction; one that a concurrent sync cancelled stays cancelled.
 */
export async function putUser(
  principal: Principal,
  userId: string,
  input: PutUserInput,
): Promise<UserView & { joinedTeamIds: string[] }> {
  const others = (await usersRepo.findUsersByEmail(principal.orgId, input.email)).filter(
    (u) => u.id !== userId,
  );
  if (others.length > 0) throw new ConflictError('EMAIL_IN_USE');
  const at = new Date().toISOString();
  const user = await usersRepo.upsertUser(
    principal.orgId,
    { id: userId, email: input.email, name: input.name, role: input.role },
    at,
  );
  const joinedTeamIds: string[] = [];
  for (const inv of await findInvitationsByEmail(principal.orgId, input.email)) {
    if (await convertInvitation(principal.orgId, inv.teamId, { id: userId, email: inv.email }, at))
      joinedTeamIds.push(inv.teamId);
  }
  if (joinedTeamIds.length)
    log.info('invitations accepted', { orgId: principal.orgId, userId, joinedTeamIds });
  return { ...view(user), joinedTeamIds };
}
