import type { AuthContext } from '../../../shared/auth/principal';
import {
  type OrganizationRegistry,
  registerOnFirstAdmin,
  registersOrganization,
  resetKnownOrganizations,
} from '../../../shared/auth/registration';

const admin: AuthContext = {
  orgId: 'org_new',
  principalId: 'user_a',
  kind: 'user',
  credential: 'jwt',
  claimRole: 'org:admin',
};

/** A registry that remembers what it holds, like the table's conditional write. */
function registry(existing: string[] = []): OrganizationRegistry & { calls: string[] } {
  const held = new Set(existing);
  const calls: string[] = [];
  return {
    calls,
    register: async (orgId, by) => {
      calls.push(`${orgId}<-${by}`);
      if (held.has(orgId)) return false;
      held.add(orgId);
      return true;
    },
  };
}

beforeEach(() => resetKnownOrganizations());

describe('an organisation is registered by its first admin session JWT', () => {
  it('only a JWT whose role claim names admin registers', () => {
    expect(registersOrganization(admin)).toBe(true);
    expect(registersOrganization({ ...admin, claimRole: 'admin' })).toBe(true);
    expect(registersOrganization({ ...admin, claimRole: 'member' })).toBe(false);
    const { claimRole: _none, ...noClaim } = admin;
    expect(registersOrganization(noClaim)).toBe(false);
    expect(registersOrganization({ ...admin, credential: 'apikey', keyId: 'key_1' })).toBe(false);
    expect(
      registersOrganization({ ...admin, kind: 'org', principalId: 'org_new', credential: 'apikey' }),
    ).toBe(false);
  });

  it('writes once per organisation and process, and says whether it created it', async () => {
    const reg = registry(['org_old']);
    expect(await registerOnFirstAdmin(admin, reg)).toBe(true);
    expect(await registerOnFirstAdmin({ ...admin, principalId: 'user_b' }, reg)).toBe(false);
    expect(await registerOnFirstAdmin({ ...admin, orgId: 'org_old' }, reg)).toBe(false);
    expect(await registerOnFirstAdmin({ ...admin, orgId: 'org_old' }, reg)).toBe(false);
    expect(await registerOnFirstAdmin({ ...admin, orgId: 'org_x', claimRole: 'member' }, reg)).toBe(false);
    expect(reg.calls).toEqual(['org_new<-user_a', 'org_old<-user_a']);
  });

  it('tries again after a failed write', async () => {
    let fail = true;
    const reg: OrganizationRegistry = {
      register: async () => {
        if (fail) throw new Error('throttled');
        return true;
      },
    };
    await expect(registerOnFirstAdmin(admin, reg)).rejects.toThrow('throttled');
    fail = false;
    expect(await registerOnFirstAdmin(admin, reg)).toBe(true);
  });
});
