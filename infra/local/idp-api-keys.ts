import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { isWellFormedApiKey } from '../../shared/auth/api-key-format';
import { ORG_ID_PATTERN, USER_ID_PATTERN } from '../../shared/auth/principal';

/**
 * The local stand-in for the identity provider's API keys (its dashboard's "API keys" page and its
 * OAuth 2.0 token introspection endpoint, RFC 7662), local only, never deployed. `npm start` points
 * `API_KEY_INTROSPECTION_URL` at it, so a key made here works on every route as one made in the
 * provider would in AWS (docs/auth.md#api-keys-from-the-identity-provider):
 * - `POST /_local/idp/api-keys` `{subject: user_…|org_…, orgId?, role?, expiresInSeconds?}`: a new
 *   key (`ak_` and 40 random characters, not our checksum format) for a user of `orgId` or for the
 *   organisation `subject`; answered once, only its hash is kept (`<state>/idp-api-keys.json`);
 * - `DELETE /_local/idp/api-keys/{id}`: revokes it;
 * - `GET /_local/idp/api-keys/{id}`: the key's record and how many introspections asked about it;
 * - `POST /_local/idp/introspect` (form `token`, client authentication `Bearer <secret>`): `{active:
 *   true, sub, org_id, org_role?, exp?, …}` for a live key, `{active: false}` otherwise;
 * - `POST /_local/idp/outage` `{down: true|false}`: while down, introspection answers 503 (the
 *   provider is down).
 */
export const INTROSPECT_PATH = '/_local/idp/introspect';
const KEYS_PATH = '/_local/idp/api-keys';

/** The service's client secret at this provider; `npm start` hands it to the service (one per run). */
export const LOCAL_INTROSPECTION_SECRET = randomBytes(24).toString('base64url');

interface IssuedKey {
  id: string;
  hash: string;
  subject: string;
  orgId: string;
  role?: string;
  createdAt: string;
  expiresAt: number | null;
  revokedAt: string | null;
}

let file: string | undefined;
let keys: IssuedKey[] = [];
const introspections = new Map<string, number>();
let down = false;

const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

function save(): void {
  if (file) writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
}

export function startIdpApiKeys(stateDir: string): void {
  file = join(stateDir, 'idp-api-keys.json');
  keys = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as IssuedKey[]) : [];
  down = false;
}

/** A new key as the provider issues it: never one our own checksum would take for ours. */
function newKey(): string {
  for (;;) {
    const key = `ak_${randomBytes(30).toString('base64url')}`;
    if (!isWellFormedApiKey(key)) return key;
  }
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
const NO_STORE = { 'cache-control': 'no-store' };

function clientAuthenticated(headers: IncomingHttpHeaders | undefined): boolean {
  const given = Buffer.from(headers?.authorization ?? '');
  const expected = Buffer.from(`Bearer ${LOCAL_INTROSPECTION_SECRET}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function introspect(form: Record<string, unknown>, headers: IncomingHttpHeaders | undefined): Answer {
  if (down) return { status: 503, body: { error: 'temporarily_unavailable' }, headers: NO_STORE };
  if (!clientAuthenticated(headers))
    return {
      status: 401,
      body: { error: 'invalid_client' },
      headers: { ...NO_STORE, 'www-authenticate': 'Bearer' },
    };
  const token = typeof form.token === 'string' ? form.token : '';
  const found = keys.find((k) => k.hash === hashOf(token));
  if (found) introspections.set(found.id, (introspections.get(found.id) ?? 0) + 1);
  const now = Math.floor(Date.now() / 1000);
  if (!found || found.revokedAt || (found.expiresAt !== null && found.expiresAt <= now))
    return { status: 200, body: { active: false }, headers: NO_STORE };
  return {
    status: 200,
    body: {
      active: true,
      token_type: 'api_key',
      client_id: found.id,
      sub: found.subject,
      org_id: found.orgId,
      ...(found.role ? { org_role: found.role } : {}),
      iat: Math.floor(Date.parse(found.createdAt) / 1000),
      ...(found.expiresAt !== null ? { exp: found.expiresAt } : {}),
    },
    headers: NO_STORE,
  };
}

function issue(body: unknown): Answer {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const subject = typeof b.subject === 'string' ? b.subject : '';
  const isOrg = ORG_ID_PATTERN.test(subject);
  if (!isOrg && !USER_ID_PATTERN.test(subject))
    return { status: 400, body: { error: 'subject: a user_… or org_… id is required' } };
  const orgId = isOrg ? subject : b.orgId;
  if (
    typeof orgId !== 'string' ||
    !ORG_ID_PATTERN.test(orgId) ||
    (isOrg && b.orgId !== undefined && b.orgId !== subject)
  )
    return {
      status: 400,
      body: { error: 'orgId: the org_… id of the user is required (for an org key: absent or the same)' },
    };
  if (b.role !== undefined && typeof b.role !== 'string')
    return { status: 400, body: { error: 'role: a string such as admin or member' } };
  const ttl = b.expiresInSeconds;
  if (ttl !== undefined && !(typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0))
    return { status: 400, body: { error: 'expiresInSeconds: a positive whole number' } };
  const key = newKey();
  const record: IssuedKey = {
    id: `idpkey_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    hash: hashOf(key),
    subject,
    orgId,
    ...(typeof b.role === 'string' ? { role: b.role } : {}),
    createdAt: new Date().toISOString(),
    expiresAt: typeof ttl === 'number' ? Math.floor(Date.now() / 1000) + ttl : null,
    revokedAt: null,
  };
  keys.push(record);
  save();
  return { status: 201, body: { id: record.id, key, subject, orgId, expiresAt: record.expiresAt } };
}

const view = (k: IssuedKey) => {
  const { hash: _hash, ...rest } = k;
  return { ...rest, introspections: introspections.get(k.id) ?? 0 };
};

/** The stand-in's routes (called by the local IdP hook); undefined for any other path. */
export function handleIdpApiKeys(
  method: string,
  path: string,
  body: unknown,
  headers: IncomingHttpHeaders | undefined,
): Answer | undefined {
  if (path === INTROSPECT_PATH && method === 'POST')
    return introspect((body && typeof body === 'object' ? body : {}) as Record<string, unknown>, headers);
  if (path === '/_local/idp/outage' && method === 'POST') {
    const d = (body as { down?: unknown } | undefined)?.down;
    if (typeof d !== 'boolean') return { status: 400, body: { error: 'down: true or false' } };
    down = d;
    return { status: 200, body: { down } };
  }
  if (path === KEYS_PATH && method === 'POST') return issue(body);
  if (path.startsWith(`${KEYS_PATH}/`)) {
    const found = keys.find((k) => k.id === path.slice(KEYS_PATH.length + 1));
    if (!found) return { status: 404, body: { error: 'no such key' } };
    if (method === 'GET') return { status: 200, body: view(found) };
    if (method === 'DELETE') {
      found.revokedAt ??= new Date().toISOString();
      save();
      return { status: 200, body: view(found) };
    }
  }
  return undefined;
}
