import type { Principal } from '../../../shared/auth/principal';
import { canUseScope } from '../../../shared/domain/scopes/rules';

const member = (teamIds: string[]): Principal => ({
  orgId: 'org_t',
  principalId: 'user_m',
  kind: 'user',
  role: 'member',
  teamIds,
});

describe('canUseScope', () => {
  it('opens a scope without teams to every member', () => {
    expect(canUseScope(member([]), { teamIds: [] })).toBe(true);
  });

  it('restricts a team scope to members of one of its teams', () => {
    expect(canUseScope(member(['team_a']), { teamIds: ['team_b', 'team_a'] })).toBe(true);
    expect(canUseScope(member(['team_c']), { teamIds: ['team_b', 'team_a'] })).toBe(false);
  });

  it('lets admins and org principals use any scope', () => {
    expect(canUseScope({ ...member([]), role: 'admin' }, { teamIds: ['team_b'] })).toBe(true);
    expect(canUseScope({ ...member([]), kind: 'org', principalId: 'org_t' }, { teamIds: ['team_b'] })).toBe(
      true,
    );
  });
});
