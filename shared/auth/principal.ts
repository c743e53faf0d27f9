import { UnauthorizedError } from '../errors';

/** Who is calling, as handlers see it. `orgId` always comes from the verified credential. */
export interface Principal {
  orgId: string;
  principalId: string;
  kind: 'user' | 'org';
  role: 'admin' | 'member';
  teamIds: string[];
  email?: string;
}

/**
 * What verifying a credential proves (`verifyCredential`, run by each route: there is no gateway
 * authorizer). A warm container may keep an API key's answer for a while (shared/http/identity.ts),
 * so it holds nothing that may change between requests (role, teams, revocation): those are
 * loaded per request (`principalOf`).
 */
export interface AuthContext {
  orgId: string;
  principalId: string;
  kind: 'user' | 'org';
  /** `apikey`: one of our `ak_` keys; `idpkey`: an `ak_` key the identity provider issued. */
  credential: 'jwt' | 'apikey' | 'idpkey';
  /** The API key's id (our keys), for the per-request revocation check. */
  keyId?: string;
  /** The role claimed by the IdP token (or key), used when the user has no stored profile yet. */
  claimRole?: string;
}

/** The principal ids a credential may name. */
export const ORG_ID_PATTERN = /^org_[A-Za-z0-9_-]{1,64}$/;
export const USER_ID_PATTERN = /^user_[A-Za-z0-9_-]{1,64}$/;

export function isAdmin(principal: Principal): boolean {
  return principal.kind === 'org' || principal.role === 'admin';
}

export function isTeamMember(principal: Principal, teamId: string): boolean {
  return principal.teamIds.includes(teamId);
}

/**
 * What a principal's partition holds that may change between requests, as the table read finds
 * it: the stored profile (absent for a first-time JWT user), the teams, and the mirror of the API
 * key in use (absent when the key is unknown or the credential is a JWT).
 */
export interface PrincipalRecords {
  profile?: { role?: unknown; disabledAt?: unknown; email?: unknown };
  teamIds: string[];
  apiKey?: { revokedAt?: unknown };
}

/**
 * The caller of one request, from what the credential check proved and what the table holds now. A
 * revoked or unknown key, a disabled profile, or a user key of ours without a profile is a 401. The
 * role: `admin` for the organisation principal; else the stored profile's role; a user of a JWT or
 * of an identity provider's key without a stored profile (a first-time user of the IdP's
 * organisation) gets the role its token or the provider's answer claims.
 */
export function principalOf(auth: AuthContext, records: PrincipalRecords): Principal {
  const { profile, teamIds, apiKey } = records;
  if (auth.credential === 'apikey' && (!apiKey || apiKey.revokedAt)) throw new UnauthorizedError();
  if (profile?.disabledAt) throw new UnauthorizedError();
  // One of our API keys always belongs to a stored principal.
  if (auth.credential === 'apikey' && auth.kind === 'user' && !profile) throw new UnauthorizedError();
  const role: Principal['role'] =
    auth.kind === 'org'
      ? 'admin'
      : profile?.role === 'admin'
        ? 'admin'
        : profile
          ? 'member'
          : roleFromClaim(auth.claimRole);
  return {
    orgId: auth.orgId,
    principalId: auth.principalId,
    kind: auth.kind,
    role,
    teamIds,
    ...(typeof profile?.email === 'string' ? { email: profile.email } : {}),
  };
}

/** The role an IdP role claim names: admin when it contains "admin" (`admin`, `org:admin`), else member. */
export function roleFromClaim(claim: string | undefined): Principal['role'] {
  return claim && /admin/i.test(claim) ? 'admin' : 'member';
}
