import type { Principal } from '../../../shared/auth/principal';
import {
  assertJsonSize,
  assertWidgetCount,
  canEdit,
  canView,
  datesOrdered,
  expectedVersion,
  parseIfMatch,
  scopeDecision,
  scopeReferences,
  versionToPrune,
} from '../../../shared/domain/dashboards/rules';
import { BadRequestError, PayloadTooLargeError } from '../../../shared/errors';
import { DASHBOARD_LIMITS } from '../../../shared/model/dashboard-schemas';
import { simpleWidget } from '../../fixtures/dashboards/realistic';

const principal = (over: Partial<Principal> = {}): Principal => ({
  orgId: 'org_1',
  principalId: 'user_me',
  kind: 'user',
  role: 'member',
  teamIds: [],
  ...over,
});
const adminP = principal({ principalId: 'user_admin', role: 'admin' });
const orgP = principal({ principalId: 'org_1', kind: 'org', role: 'member' });

describe('dashboard permissions', () => {
  it('PRIVATE is visible to its creator and admins only; PUBLIC and TEMPLATE to everyone', () => {
    const me = principal();
    expect(canView(me, { type: 'PRIVATE', createdById: 'user_me' })).toBe(true);
    expect(canView(me, { type: 'PRIVATE', createdById: 'user_other' })).toBe(false);
    expect(canView(adminP, { type: 'PRIVATE', createdById: 'user_other' })).toBe(true);
    expect(canView(orgP, { type: 'PRIVATE', createdById: 'user_other' })).toBe(true);
    expect(canView(me, { type: 'PUBLIC', createdById: 'user_other' })).toBe(true);
    expect(canView(me, { type: 'TEMPLATE', createdById: 'user_other' })).toBe(true);
  });

  it('editing: admins; team members for a team dashboard; the creator otherwise', () => {
    const me = principal({ teamIds: ['team_a'] });
    expect(canEdit(me, { type: 'PUBLIC', createdById: 'user_me', teamId: null })).toBe(true);
    expect(canEdit(me, { type: 'PUBLIC', createdById: 'user_other', teamId: null })).toBe(false);
    expect(canEdit(me, { type: 'PUBLIC', createdById: 'user_other', teamId: 'team_a' })).toBe(true);
    expect(canEdit(me, { type: 'PRIVATE', createdById: 'user_other', teamId: 'team_a' })).toBe(false);
    expect(canEdit(me, { type: 'PUBLIC', createdById: 'user_me', teamId: 'team_b' })).toBe(false);
    expect(canEdit(adminP, { type: 'PRIVATE', createdById: 'user_other', teamId: 'team_b' })).toBe(true);
  });

  it('scopes: admins any existing one; members an open one or one of their teams; unknown is unknown', () => {
    const me = principal({ teamIds: ['team_a'] });
    expect(scopeDecision(me, { teamIds: [] })).toBe('ok');
    expect(scopeDecision(me, { teamIds: ['team_b', 'team_a'] })).toBe('ok');
    expect(scopeDecision(me, { teamIds: ['team_b'] })).toBe('forbidden');
    expect(scopeDecision(adminP, { teamIds: ['team_b'] })).toBe('ok');
    expect(scopeDecision(me, undefined)).toBe('unknown');
    expect(scopeDecision(adminP, undefined)).toBe('unknown');
  });

  it('lists every scope a body refers to with its path', () => {
    expect(
      scopeReferences({
        scopeId: 's1',
        widgets: [simpleWidget('a'), simpleWidget('b', { scopeId: 's2' })] as never,
      }),
    ).toEqual([
      { scopeId: 's1', path: 'scopeId' },
      { scopeId: 's2', path: 'widgets.1.source.request.scopeId' },
    ]);
  });
});

describe('dashboard versions and preconditions', () => {
  it('reads If-Match as a version number', () => {
    expect(parseIfMatch('"3"')).toBe(3);
    expect(parseIfMatch('W/"4"')).toBe(4);
    expect(parseIfMatch('5')).toBe(5);
    expect(parseIfMatch('*')).toBeUndefined();
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(() => parseIfMatch('"abc"')).toThrow(BadRequestError);
    expect(() => parseIfMatch('"0"')).toThrow(BadRequestError);
  });

  it('takes the version from the body or If-Match, refusing a disagreement', () => {
    expect(expectedVersion(2, undefined)).toBe(2);
    expect(expectedVersion(undefined, '"2"')).toBe(2);
    expect(expectedVersion(2, '"2"')).toBe(2);
    expect(expectedVersion(undefined, undefined)).toBeUndefined();
    expect(() => expectedVersion(2, '"3"')).toThrow(BadRequestError);
  });

  it('prunes the oldest version once more than the cap would be kept', () => {
    expect(versionToPrune(50, 50)).toBeUndefined();
    expect(versionToPrune(51, 50)).toBe(1);
    expect(versionToPrune(120, 50)).toBe(70);
    expect(versionToPrune(3, 2)).toBe(1);
    expect(versionToPrune(DASHBOARD_LIMITS.maxVersions + 1)).toBe(1);
  });

  it('compares dates of either form', () => {
    expect(datesOrdered('2025-01-01', '2025-01-01T10:00:00Z')).toBe(true);
    expect(datesOrdered('2025-02-01', '2025-01-01')).toBe(false);
    expect(datesOrdered(null, '2025-01-01')).toBe(true);
  });
});

describe('dashboard size caps', () => {
  it('answers 413 past the widget cap and lets the cap itself through', () => {
    expect(() => assertWidgetCount({ widgets: new Array(DASHBOARD_LIMITS.maxWidgets) })).not.toThrow();
    expect(() => assertWidgetCount({ widgets: new Array(DASHBOARD_LIMITS.maxWidgets + 1) })).toThrow(
      PayloadTooLargeError,
    );
    expect(() => assertWidgetCount(null)).not.toThrow();
    expect(() => assertWidgetCount({ widgets: 'many' })).not.toThrow();
  });

  it('answers 413 past the JSON cap or the conditions cap', () => {
    expect(() => assertJsonSize(DASHBOARD_LIMITS.maxJsonBytes, null)).not.toThrow();
    expect(() => assertJsonSize(DASHBOARD_LIMITS.maxJsonBytes + 1, null)).toThrow(PayloadTooLargeError);
    const big = { text: 'x'.repeat(DASHBOARD_LIMITS.maxConditionsBytes) };
    expect(() => assertJsonSize(10, big)).toThrow(/conditions/);
    expect(() => assertJsonSize(10, { a: 1 })).not.toThrow();
  });
});
