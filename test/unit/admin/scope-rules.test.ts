import type { Principal } from '../../../shared/auth/principal';
import { canUseScope, parseScopeIfMatch } from '../../../shared/domain/scopes/rules';

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

describe('parseScopeIfMatch', () => {
  it('reads "3", W/"3" and 3 as version 3; * and no header as no constraint', () => {
    expect(parseScopeIfMatch('"3"')).toBe(3);
    expect(parseScopeIfMatch('W/"3"')).toBe(3);
    expect(parseScopeIfMatch('3')).toBe(3);
    expect(parseScopeIfMatch('*')).toBeUndefined();
    expect(parseScopeIfMatch(undefined)).toBeUndefined();
  });

  it('refuses anything else with a 400', () => {
    for (const bad of ['"abc"', '0', '"1.5"', 'v1']) expect(() => parseScopeIfMatch(bad)).toThrow(/If-Match/);
  });
});
