import { type AuthContext, roleFromClaim } from './principal';

/**
 * Organisations come from the identity provider: the first verified session JWT of an org admin
 * (a token whose role claim names admin) registers its organisation. The write is the caller's
 * (`shared/http/identity.ts` hands in the table's conditional write), so this rule touches no
 * storage. API keys and user profiles are never a reason to register: they belong to an
 * organisation that exists already.
 */
export interface OrganizationRegistry {
  /** Registers the organisation unless it exists (idempotent); answers whether it created it. */
  register(orgId: string, registeredBy: string): Promise<boolean>;
}

/** Whether this credential registers its organisation: a session JWT whose role claim is admin. */
export function registersOrganization(auth: AuthContext): boolean {
  return auth.credential === 'jwt' && auth.kind === 'user' && roleFromClaim(auth.claimRole) === 'admin';
}

/** Organisations this process registered or found registered: each is written at most once per process. */
const known = new Set<string>();

/**
 * Registers the organisation of an admin's session JWT, once per process and organisation. The
 * registry's write is conditional, so concurrent first requests (here or in other processes) all
 * succeed and one of them writes. Answers whether this call created the organisation.
 */
export async function registerOnFirstAdmin(
  auth: AuthContext,
  registry: OrganizationRegistry,
): Promise<boolean> {
  if (!registersOrganization(auth) || known.has(auth.orgId)) return false;
  const created = await registry.register(auth.orgId, auth.principalId);
  known.add(auth.orgId);
  return created;
}

/** For tests: forget which organisations this process has seen. */
export function resetKnownOrganizations(): void {
  known.clear();
}
