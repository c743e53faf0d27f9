import { readFileSync } from 'node:fs';
import { checkContract } from './contract';

/** The running local stack's session, as written by `infra/local/start.ts`. */
export interface Session {
  baseUrl: string;
  orgId: string;
  otherOrgId: string;
  apiKeys: { admin: string; member: string; org: string; outsider: string };
  users: { admin: string; member: string; outsider: string };
  emails: { admin: string; member: string; outsider: string };
  teams: { id: string; name: string }[];
  mailUrl: string;
  /** The same e-mails in the SES emulator's viewer (an HTML page). */
  mailboxUrl: string;
  /** The capture server's record of Slack, Teams and IdP calls, as JSON (`/messages`). */
  chatUrl: string;
  /** The same Slack and Teams messages as an HTML page (`/outbox`). */
  outboxUrl: string;
  jwksUrl: string;
  endpoints: { dynamodb: string; sqs: string; ses: string; capture: string };
  tableName: string;
  queues: Record<string, { url: string; dlqUrl: string }>;
  stateDir: string;
}

let cached: Session | undefined;

/** A suffix unique to one run of a test file, for the ids and names it creates. */
export function runId(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

export function session(): Session {
  const file = process.env.TEST_SESSION_FILE;
  if (!file)
    throw new Error(
      'TEST_SESSION_FILE is not set: run the tests through jest (global setup starts the stack)',
    );
  cached ??= JSON.parse(readFileSync(file, 'utf8')) as Session;
  return cached;
}

/**
 * The stack's seeded API keys, each read when called (once the stack runs): `admin` and `member` of
 * the demo organisation, its organisation key `org`, and `outsider`, the second organisation's admin.
 */
export const stackKeys = {
  admin: () => session().apiKeys.admin,
  member: () => session().apiKeys.member,
  org: () => session().apiKeys.org,
  outsider: () => session().apiKeys.outsider,
};

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** Calls the local HTTP API with a credential (an `ak_` key or a JWT). */
export async function api<T = unknown>(
  method: string,
  path: string,
  opts: {
    token?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    skipContract?: boolean;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${session().baseUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep the text
  }
  // Every answer is held against the OpenAPI document (./contract.ts) unless a test opts out to
  // send something the document cannot describe on purpose.
  if (!opts.skipContract) checkContract(method, path, res.status, parsed);
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/**
 * Every item of a list route, page after page of `limit` (`path?limit=…` then `query`, e.g.
 * `&includeArchived=true`, then the cursor) until `nextCursor` is null; every page must answer 200.
 */
export async function listAllPages<T>(token: string, path: string, query = '', limit = 100): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res: ApiResponse<{ items: T[]; nextCursor: string | null }> = await api(
      'GET',
      `${path}?limit=${limit}${query}${after}`,
      { token },
    );
    expect(res.status).toBe(200);
    out.push(...res.body.items);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}
