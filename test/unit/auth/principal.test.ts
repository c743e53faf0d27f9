import { type AuthContext, type PrincipalRecords, principalOf } from '../../../shared/auth/principal';
import { UnauthorizedError } from '../../../shared/errors';

const jwtUser: AuthContext = { orgId: 'org_a', principalId: 'user_a', kind: 'user', credential: 'jwt' };
const keyUser: AuthContext = { ...jwtUser, credential: 'apikey', keyId: 'key_1' };
const orgKey: AuthContext = {
  orgId: 'org_a',
  principalId: 'org_a',
  kind: 'org',
  credential: 'apikey',
  keyId: 'k',
};

describe('principalOf: the per-request principal rule', () => {
  it('takes the role from the stored profile, teams and e-mail from the partition', () => {
    expect(
      principalOf(jwtUser, { profile: { role: 'admin', email: 'a@x.example' }, teamIds: ['t1', 't2'] }),
    ).toEqual({
      orgId: 'org_a',
      principalId: 'user_a',
      kind: 'user',
      role: 'admin',
      teamIds: ['t1', 't2'],
      email: 'a@x.example',
    });
    expect(principalOf(jwtUser, { profile: { role: 'owner' }, teamIds: [] }).role).toBe('member');
  });

  it('gives a JWT user without a stored profile the role its token claims, and the stored role wins over the claim', () => {
    expect(principalOf({ ...jwtUser, claimRole: 'org:Admin' }, { teamIds: [] }).role).toBe('admin');
    expect(principalOf({ ...jwtUser, claimRole: 'viewer' }, { teamIds: [] }).role).toBe('member');
    expect(principalOf(jwtUser, { teamIds: [] }).role).toBe('member');
    expect(principalOf({ ...jwtUser, claimRole: 'admin' }, { profile: {}, teamIds: [] }).role).toBe('member');
  });

  it('makes the organisation principal an admin', () => {
    expect(principalOf(orgKey, { apiKey: { revokedAt: null }, teamIds: [] }).role).toBe('admin');
  });

  it.each([
    ['a revoked key', keyUser, { profile: {}, apiKey: { revokedAt: '2026-01-01T00:00:00Z' }, teamIds: [] }],
    ['a key whose mirror is gone', keyUser, { profile: {}, teamIds: [] }],
    ['a user key without a stored profile', keyUser, { apiKey: {}, teamIds: [] }],
    ['a disabled user', jwtUser, { profile: { disabledAt: '2026-01-01T00:00:00Z' }, teamIds: [] }],
    [
      "a disabled user's identity provider key",
      { ...jwtUser, credential: 'idpkey' },
      { profile: { disabledAt: '2026-01-01T00:00:00Z' }, teamIds: [] },
    ],
  ] as [string, AuthContext, PrincipalRecords][])('refuses %s with a 401', (_name, auth, records) => {
    expect(() => principalOf(auth, records)).toThrow(UnauthorizedError);
  });

  it("takes an identity provider key's user as a JWT's: no key mirror, the claimed role without a profile", () => {
    const idpUser: AuthContext = { ...jwtUser, credential: 'idpkey' };
    expect(principalOf({ ...idpUser, claimRole: 'org:admin' }, { teamIds: ['t1'] })).toEqual({
      orgId: 'org_a',
      principalId: 'user_a',
      kind: 'user',
      role: 'admin',
      teamIds: ['t1'],
    });
    expect(
      principalOf({ ...idpUser, claimRole: 'org:admin' }, { profile: { role: 'member' }, teamIds: [] }).role,
    ).toBe('member');
    const idpOrg: AuthContext = { orgId: 'org_a', principalId: 'org_a', kind: 'org', credential: 'idpkey' };
    expect(principalOf(idpOrg, { teamIds: [] }).role).toBe('admin');
  });
});
