import type { Principal } from '../../../shared/auth/principal';
import {
  canEdit,
  canView,
  needsTeamMembershipToDuplicate,
  scheduleIssues,
} from '../../../shared/domain/reports/rules';

const p = (over: Partial<Principal> = {}): Principal => ({
  orgId: 'org_x',
  principalId: 'user_a',
  kind: 'user',
  role: 'member',
  teamIds: [],
  ...over,
});

describe('report permissions', () => {
  const privateOfB = { type: 'PRIVATE' as const, createdById: 'user_b', teamId: null };
  const publicOfB = { type: 'PUBLIC' as const, createdById: 'user_b', teamId: null };
  const teamReport = { type: 'PUBLIC' as const, createdById: 'user_b', teamId: 'team_1' };

  it('hides other people’s PRIVATE reports from members but not from admins or org principals', () => {
    expect(canView(p(), privateOfB)).toBe(false);
    expect(canView(p({ principalId: 'user_b' }), privateOfB)).toBe(true);
    expect(canView(p({ role: 'admin' }), privateOfB)).toBe(true);
    expect(canView(p({ kind: 'org', principalId: 'org_x' }), privateOfB)).toBe(true);
    expect(canView(p(), publicOfB)).toBe(true);
  });

  it('lets only the creator edit a report without a team; team members edit team reports', () => {
    expect(canEdit(p(), publicOfB)).toBe(false);
    expect(canEdit(p({ principalId: 'user_b' }), publicOfB)).toBe(true);
    expect(canEdit(p(), teamReport)).toBe(false);
    expect(canEdit(p({ teamIds: ['team_1'] }), teamReport)).toBe(true);
    expect(canEdit(p({ principalId: 'user_b' }), teamReport)).toBe(false);
    expect(canEdit(p({ role: 'admin' }), teamReport)).toBe(true);
  });

  it('requires team membership to duplicate a team report', () => {
    expect(needsTeamMembershipToDuplicate(p(), teamReport)).toBe(true);
    expect(needsTeamMembershipToDuplicate(p({ teamIds: ['team_1'] }), teamReport)).toBe(false);
    expect(needsTeamMembershipToDuplicate(p({ role: 'admin' }), teamReport)).toBe(false);
    expect(needsTeamMembershipToDuplicate(p(), publicOfB)).toBe(false);
  });
});

describe('schedule rules', () => {
  it('WEEKLY needs a weekday; other cadences do not', () => {
    expect(scheduleIssues({ scheduledPeriod: 'WEEKLY', scheduledWeekday: null })).toHaveLength(1);
    expect(scheduleIssues({ scheduledPeriod: 'WEEKLY', scheduledWeekday: 0 })).toEqual([]);
    expect(scheduleIssues({ scheduledPeriod: 'MONTHLY', scheduledWeekday: null })).toEqual([]);
    expect(scheduleIssues({ scheduledPeriod: null, scheduledWeekday: null })).toEqual([]);
  });
});
