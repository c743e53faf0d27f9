/**
 * The console's API client: every request goes to the API base URL read from `config.json` (served
 * beside the page), with the signed-in credential as a bearer token. Nothing else is fetched.
 */
import type { AlertEvaluation, AlertWidgetData, CostAlert } from './alerts-shape';
import type { Delivery, Report } from './reports-shape';
import type { Candidate, Dashboard, ExplorerRequest, ExplorerResult, WhereClause } from './shape';

const CREDENTIAL_KEY = 'finops.console.credential';

export interface ConsoleConfig {
  apiBaseUrl: string;
  /**
   * The local identity provider's sign-in (`npm start` only): `GET {localIdp}/users` lists the
   * demo users, `POST {localIdp}/token {userId}` answers `{token}`. Absent in AWS.
   */
  localIdp?: string;
}

export interface DemoUser {
  userId: string;
  name: string;
  email: string;
  orgId: string;
  role: string;
}

/** An answer that is not 2xx: its status and the API's `error` (or the gateway's `message`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`${status} ${code}`);
  }
}

/**
 * True when the credential itself was refused: the gateway answers 401 without one and
 * `403 {message: "Forbidden"}` when the authorizer denies it (expired, revoked, malformed), while a
 * handler's refusal is `403 {error: "FORBIDDEN"}` (signed in, not allowed).
 */
export function isCredentialRefused(status: number, body: unknown): boolean {
  if (status === 401) return true;
  if (status !== 403 || !body || typeof body !== 'object') return false;
  const b = body as { message?: unknown; error?: unknown };
  return b.error === undefined && b.message === 'Forbidden';
}

export const credential = {
  get(): string | null {
    return sessionStorage.getItem(CREDENTIAL_KEY);
  },
  set(value: string): void {
    sessionStorage.setItem(CREDENTIAL_KEY, value);
  },
  clear(): void {
    sessionStorage.removeItem(CREDENTIAL_KEY);
  },
};

let config: Promise<ConsoleConfig> | undefined;
export function loadConfig(): Promise<ConsoleConfig> {
  config ??= fetch('config.json', { cache: 'no-store' }).then(async (r) => {
    if (!r.ok) throw new Error(`config.json: ${r.status}`);
    const c = (await r.json()) as Partial<ConsoleConfig>;
    if (typeof c.apiBaseUrl !== 'string' || !c.apiBaseUrl) throw new Error('config.json has no apiBaseUrl');
    return {
      apiBaseUrl: c.apiBaseUrl.replace(/\/+$/, ''),
      ...(typeof c.localIdp === 'string' && c.localIdp ? { localIdp: c.localIdp.replace(/\/+$/, '') } : {}),
    };
  });
  return config;
}

/** Called when the credential is refused: the app goes back to sign in. */
let onSignedOut: () => void = () => {};
export function onCredentialRefused(fn: () => void): void {
  onSignedOut = fn;
}

export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  token = credential.get(),
): Promise<T> {
  const { apiBaseUrl } = await loadConfig();
  const r = await fetch(`${apiBaseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!r.ok) {
    if (isCredentialRefused(r.status, parsed)) {
      credential.clear();
      onSignedOut();
    }
    const b = (parsed ?? {}) as { error?: unknown; message?: unknown };
    throw new ApiError(r.status, String(b.error ?? b.message ?? r.statusText));
  }
  return parsed as T;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface DimensionEntry {
  name: string;
  label: string;
  groupTitle: string;
  values: { name: string; label: string; proportionCostAllocated: number }[];
  operators: { name: string; value: string; label: string }[];
}

/** The local identity provider (absent unless `config.json` names one). */
export const localIdp = {
  async users(): Promise<DemoUser[] | null> {
    const { localIdp: base } = await loadConfig();
    if (!base) return null;
    const r = await fetch(`${base}/users`, { cache: 'no-store' });
    if (!r.ok) throw new ApiError(r.status, 'the local identity provider did not answer');
    return (await r.json()) as DemoUser[];
  },
  async token(userId: string): Promise<string> {
    const { localIdp: base } = await loadConfig();
    const r = await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId }),
      cache: 'no-store',
    });
    const b = (await r.json().catch(() => ({}))) as { token?: string; error?: string };
    if (!r.ok || !b.token) throw new ApiError(r.status, b.error ?? 'no token');
    return b.token;
  },
};

export const api = {
  /** Checks a credential before it is kept (any member may list dashboards). */
  verify: (token: string) => request<Page<Dashboard>>('GET', '/dashboard-v2?limit=1', undefined, {}, token),
  dashboards: (q: { type?: string; teamId?: string; cursor?: string | null }) => {
    const p = new URLSearchParams({ limit: '50' });
    if (q.type) p.set('type', q.type);
    if (q.teamId) p.set('teamId', q.teamId);
    if (q.cursor) p.set('cursor', q.cursor);
    return request<Page<Dashboard>>('GET', `/dashboard-v2?${p}`);
  },
  dashboard: (id: string) => request<Dashboard>('GET', `/dashboard-v2/${encodeURIComponent(id)}`),
  versions: (id: string) =>
    request<
      Page<{ version: number; name: string; createdAt: string; createdById: string; widgetCount: number }>
    >('GET', `/dashboard-v2/${encodeURIComponent(id)}/versions?limit=20`),
  widgetData: (id: string, key: string) =>
    request<ExplorerResult>(
      'GET',
      `/dashboard-v2/${encodeURIComponent(id)}/widgets/${encodeURIComponent(key)}/data`,
    ),
  explore: (req: ExplorerRequest, conditions: WhereClause | null = null, currency: string | null = null) =>
    request<ExplorerResult>('POST', '/queries/explorer', {
      request: req,
      ...(conditions ? { conditions } : {}),
      ...(currency ? { currency } : {}),
    }),
  dimensions: () => request<DimensionEntry[]>('GET', '/dimensions'),
  candidates: () => request<Candidate[]>('GET', '/dimensions/candidates'),
  refreshStatus: () =>
    request<{
      state: string;
      lastSucceededAt?: string;
      finishedAt?: string;
      lastError?: string;
      warnings?: string[];
    }>('GET', '/dimensions/status'),
  publishDimensions: (body: Record<string, unknown>) =>
    request<{
      ok: boolean;
      publishedLabels: boolean;
      unpublished: { kind: string; name: string; errors: { kind: string; message: string }[] }[];
    }>('POST', '/dimensions/publish', body),
  publish: (id: string, body: Record<string, unknown>) =>
    request<Dashboard>('PUT', `/dashboard-v2/${encodeURIComponent(id)}`, body),
  create: (body: Record<string, unknown>) => request<Dashboard>('POST', '/dashboard-v2', body),

  alerts: (includeArchived: boolean) =>
    request<Page<CostAlert>>('GET', `/alerts-v2/costAlerts?limit=100&includeArchived=${includeArchived}`),
  alertWidgetData: (id: string) =>
    request<AlertWidgetData>('GET', `/alerts-v2/costAlerts/${encodeURIComponent(id)}/widgetData`),
  alertHistory: (id: string) =>
    request<Page<AlertEvaluation>>('GET', `/alerts-v2/costAlerts/${encodeURIComponent(id)}/history?limit=50`),
  snoozeAlert: (id: string, until: string) =>
    request<CostAlert>('POST', `/alerts-v2/costAlerts/${encodeURIComponent(id)}/snooze`, { until }),
  unsnoozeAlert: (id: string) =>
    request<CostAlert>('DELETE', `/alerts-v2/costAlerts/${encodeURIComponent(id)}/snooze`),
  archiveAlert: (id: string) =>
    request<CostAlert>('DELETE', `/alerts-v2/costAlerts/${encodeURIComponent(id)}`),

  reports: (includeArchived: boolean) =>
    request<Page<Report>>('GET', `/reports?limit=100&includeArchived=${includeArchived}`),
  report: (id: string) => request<Report>('GET', `/reports/${encodeURIComponent(id)}`),
  patchReport: (id: string, version: number, body: Record<string, unknown>) =>
    request<Report>('PATCH', `/reports/${encodeURIComponent(id)}`, body, { 'if-match': `"${version}"` }),
  sendReport: (id: string) =>
    request<{ reportId: string; runAt: string; destinations: number }>(
      'POST',
      `/reports/${encodeURIComponent(id)}/send`,
    ),
  deliveries: (id: string) =>
    request<Page<Delivery>>('GET', `/reports/${encodeURIComponent(id)}/deliveries?limit=50`),
};
