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
 * What the authorizer proves about a credential. API Gateway caches it per Authorization header,
 * so it holds nothing that may change between requests (role, teams, revocation): those are
 * loaded per request by `loadPrincipal`.
 */
export interface AuthContext {
  orgId: string;
  principalId: string;
  kind: 'user' | 'org';
  credential: 'jwt' | 'apikey';
  /** The API key's id, for the per-request revocation check. */
  keyId?: string;
  /** The role claimed by the IdP token, used when the user has no stored profile yet. */
  claimRole?: string;
}

export function isAdmin(principal: Principal): boolean {
  return principal.kind === 'org' || principal.role === 'admin';
}

export function isTeamMember(principal: Principal, teamId: string): boolean {
  return principal.teamIds.includes(teamId);
}
