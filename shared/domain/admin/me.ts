import type { AuthContext, Principal } from '../../auth/principal';
import { getPrincipalKey } from '../../db/api-keys-repo';
import { getOrganization } from '../../db/organizations-repo';
import { getUser } from '../../db/users-repo';

/**
 * `GET /me`: who the caller is, for any authenticated principal (members cannot list users). A
 * user answers their stored profile's name and e-mail (null until an admin or the first API key
 * stored one), role, teams and organisation. An API key answers what it is: `credential` says how
 * the caller signed in, and one of our keys names itself (`apiKey`: id, name, prefix); an
 * organisation key is the organisation principal (`kind: org`, no user, role admin). An
 * organisation nobody registered yet has no name (null), not a 409: the console's header still
 * shows who is signed in.
 */
export interface MeView {
  /** The user's id, or the organisation's id for the organisation principal. */
  principalId: string;
  kind: 'user' | 'org';
  userId: string | null;
  name: string | null;
  email: string | null;
  role: Principal['role'];
  teamIds: string[];
  organization: { id: string; name: string | null };
  /** `session`: a sign-in JWT; `apiKey`: one of our `ak_` keys; `idpApiKey`: the identity provider's. */
  credential: 'session' | 'apiKey' | 'idpApiKey';
  /** One of our keys: which (never the key itself); null otherwise. */
  apiKey: { id: string; name: string; prefix: string } | null;
}

const CREDENTIALS = { jwt: 'session', apikey: 'apiKey', idpkey: 'idpApiKey' } as const;

export async function whoAmI(
  principal: Principal,
  credential: Pick<AuthContext, 'credential' | 'keyId'>,
): Promise<MeView> {
  const isUser = principal.kind === 'user';
  const [profile, organization, key] = await Promise.all([
    isUser ? getUser(principal.orgId, principal.principalId) : undefined,
    getOrganization(principal.orgId),
    credential.credential === 'apikey' && credential.keyId
      ? getPrincipalKey(principal.orgId, principal.principalId, credential.keyId)
      : undefined,
  ]);
  return {
    principalId: principal.principalId,
    kind: principal.kind,
    userId: isUser ? principal.principalId : null,
    name: profile?.name || null,
    email: profile?.email || principal.email || null,
    role: principal.role,
    teamIds: principal.teamIds,
    organization: { id: principal.orgId, name: organization?.name ?? null },
    credential: CREDENTIALS[credential.credential],
    apiKey: key ? { id: key.id, name: key.name, prefix: key.prefix } : null,
  };
}
