import type { LocalHook } from './hooks';
import { loadOrCreateSigningKey, mintToken } from './idp';
import type { DemoSeed } from './seed';

/**
 * The local identity provider's sign-in, for the web console's "sign in as" list (local only,
 * never deployed; in AWS the organisation's IdP signs people in):
 * - `GET /_local/idp/users`: the demo users (id, name, e-mail, organisation, role);
 * - `POST /_local/idp/token {userId}`: a session JWT for one of them, signed with the key whose
 *   JWKS the server publishes (`npm run token` mints the same), valid for an hour.
 * Other user ids are refused: this is the demo's login page, not a token service.
 */
export const IDP_PATH = '/_local/idp';
export const IDP_TOKEN_TTL_SECONDS = 3600;

export interface DemoUser {
  userId: string;
  name: string;
  email: string;
  orgId: string;
  role: 'admin' | 'member';
}

let users: DemoUser[] = [];
let stateDir = '';

export function demoUsers(seed: DemoSeed): DemoUser[] {
  return [
    {
      userId: seed.users.admin,
      name: 'Demo Admin',
      email: seed.emails.admin,
      orgId: seed.orgId,
      role: 'admin',
    },
    {
      userId: seed.users.member,
      name: 'Demo Member',
      email: seed.emails.member,
      orgId: seed.orgId,
      role: 'member',
    },
    {
      userId: seed.users.outsider,
      name: 'Acme Admin',
      email: seed.emails.outsider,
      orgId: seed.otherOrgId,
      role: 'admin',
    },
  ];
}

export const idpHook: LocalHook = {
  name: 'idp',
  async start(ctx) {
    users = demoUsers(ctx.seed);
    stateDir = ctx.stateDir;
  },
  async handle(method, path, body) {
    if (path === `${IDP_PATH}/users` && method === 'GET')
      return { status: 200, body: users, headers: { 'cache-control': 'no-store' } };
    if (path !== `${IDP_PATH}/token` || method !== 'POST') return undefined;
    const userId = (body as { userId?: unknown } | null)?.userId;
    const user = users.find((u) => u.userId === userId);
    if (!user) return { status: 400, body: { error: 'userId: not one of the demo users' } };
    const token = await mintToken(await loadOrCreateSigningKey(stateDir), {
      userId: user.userId,
      orgId: user.orgId,
      role: user.role,
      email: user.email,
      expiresInSeconds: IDP_TOKEN_TTL_SECONDS,
    });
    return {
      status: 200,
      body: { token, expiresIn: IDP_TOKEN_TTL_SECONDS },
      headers: { 'cache-control': 'no-store' },
    };
  },
};
