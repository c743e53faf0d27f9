/**
 * The console's API client: every request goes to the API base URL read from `config.json` (served
 * beside the page), with the signed-in credential as a bearer token. Nothing else is fetched.
 */
import type { WhereClause } from '../../shared/model/where-clause';
import type { AlertEvaluation, AlertWidgetData, CostAlert } from './alerts-shape';
import type {
  Budget,
  BudgetAlert,
  BudgetAlertEvaluation,
  BudgetStatus,
  BudgetVersion,
  Suggestion,
} from './budgets-shape';
import type { CommitmentAlert, CommitmentAlertInput } from './commitment-alerts-shape';
import type { Expiring, Inventory, Simulation, Summary } from './commitments-shape';
import type { OidcConfig } from './oidc';
import type { Delivery, Report } from './reports-shape';
import type { Candidate, Dashboard, ExplorerRequest, ExplorerResult } from './shape';
import type { Upload } from './uploads-shape';

const CREDENTIAL_KEY = 'finops.console.credential';

export interface ConsoleConfig {
  apiBaseUrl: string;
  /**
   * The identity provider to sign in with (OpenID Connect, code flow with PKCE): set by the CDK
   * stack when `consoleOidcIssuer`/`consoleOidcClientId` are given, and by `npm start` (the local
   * identity provider). Absent: API keys and pasted JWTs only.
   */
  oidc?: OidcConfig;
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
 * True when the credential itself was refused: every bad credential (none, unknown, revoked,
 * expired, malformed) is `401` from the route (docs/auth.md; there is no gateway authorizer). A
 * `403 {error: "FORBIDDEN"}` is a role refusal (signed in, not allowed), so it keeps the session.
 */
export function isCredentialRefused(status: number): boolean {
  return status === 401;
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

/** What a credential says of its holder: a JWT's subject, e-mail and organisation; a key says nothing. */
export function credentialHolder(token: string | null): {
  kind: 'jwt' | 'key';
  sub?: string;
  email?: string;
  org?: string;
} {
  if (!token) return { kind: 'key' };
  const parts = token.split('.');
  if (parts.length !== 3) return { kind: 'key' };
  try {
    const json = atob(parts[1]!.replace(/-/g, '+').replace(/_/g, '/'));
    const c = JSON.parse(json) as Record<string, unknown>;
    const text = (k: string) => (typeof c[k] === 'string' ? (c[k] as string) : undefined);
    const sub = text('sub');
    const email = text('email');
    const org = text('org_id');
    return { kind: 'jwt', ...(sub ? { sub } : {}), ...(email ? { email } : {}), ...(org ? { org } : {}) };
  } catch {
    return { kind: 'key' };
  }
}

let config: Promise<ConsoleConfig> | undefined;
export function loadConfig(): Promise<ConsoleConfig> {
  config ??= fetch('config.json', { cache: 'no-store' }).then(async (r) => {
    if (!r.ok) throw new Error(`config.json: ${r.status}`);
    const c = (await r.json()) as Partial<ConsoleConfig>;
    if (typeof c.apiBaseUrl !== 'string' || !c.apiBaseUrl) throw new Error('config.json has no apiBaseUrl');
    return { apiBaseUrl: c.apiBaseUrl.replace(/\/+$/, ''), ...(oidcOf(c.oidc) ? { oidc: c.oidc! } : {}) };
  });
  return config;
}

/** True when `config.json`'s `oidc` names an issuer and a client (anything else is ignored). */
export function oidcOf(v: unknown): v is OidcConfig {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  const optional = ['scope', 'name', 'authorizationEndpoint', 'tokenEndpoint'];
  return (
    typeof o.issuer === 'string' &&
    o.issuer !== '' &&
    typeof o.clientId === 'string' &&
    o.clientId !== '' &&
    optional.every((k) => o[k] === undefined || typeof o[k] === 'string')
  );
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
    if (isCredentialRefused(r.status)) {
      credential.clear();
      onSignedOut();
    }
    const b = (parsed ?? {}) as { error?: unknown; message?: unknown };
    throw new ApiError(r.status, String(b.error ?? b.message ?? r.statusText));
  }
  // A text answer (the budget's CSV export) is handed back as it came.
  if (parsed === undefined && text && r.headers.get('content-type')?.startsWith('text/')) return text as T;
  return parsed as T;
}

/** `GET /me` (docs/admin.md "Who am I"). */
export interface Me {
  principalId: string;
  kind: 'user' | 'org';
  userId: string | null;
  name: string | null;
  email: string | null;
  role: string | null;
  organization: { id: string; name: string | null };
  credential: 'session' | 'apiKey' | 'idpApiKey';
  apiKey: { id: string; name: string; prefix: string } | null;
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

type Method = Endpoint['method'];

/** An endpoint from its head (`'GET /reports/{id}'`), its success status, query parameters and handled errors. */
function op<const Q extends readonly string[] = never>(
  head: `${Method} /${string}`,
  ok: number,
  more: { query?: Q; handles?: readonly number[] } = {},
): [Q] extends [never] ? Endpoint & { query?: never } : Endpoint & { query: Q } {
  const at = head.indexOf(' ');
  return { method: head.slice(0, at) as Method, path: head.slice(at + 1), ok, ...more } as never;
}

/**
 * Every API operation the console calls: method, OpenAPI path, the success status it expects, the
 * query parameters it sends and the error statuses it treats specially (besides 401, which every
 * call handles by going back to sign in: see `isCredentialRefused`; 403 is "not allowed"). `test/unit/console/openapi-client.test.ts` checks
 * each against the API's OpenAPI document (`GET /openapi.json`), and `call` accepts only these.
 */
export const ENDPOINTS = {
  listDashboards: op('GET /dashboard-v2', 200, { query: ['limit', 'type', 'teamId', 'cursor'] }),
  getDashboard: op('GET /dashboard-v2/{id}', 200, { handles: [404] }),
  listDashboardVersions: op('GET /dashboard-v2/{id}/versions', 200, { query: ['limit'] }),
  widgetData: op('GET /dashboard-v2/{id}/widgets/{key}/data', 200, { handles: [404] }),
  publishDashboard: op('PUT /dashboard-v2/{id}', 200, { handles: [400, 403, 404, 409] }),
  createDashboard: op('POST /dashboard-v2', 201, { handles: [400] }),
  explore: op('POST /queries/explorer', 200, { handles: [400] }),
  listDimensions: op('GET /dimensions', 200),
  candidates: op('GET /dimensions/candidates', 200),
  refreshStatus: op('GET /dimensions/status', 200),
  publishDimensions: op('POST /dimensions/publish', 200, { handles: [400, 403] }),
  getMe: op('GET /me', 200),
  listUsers: op('GET /iac/users', 200, { query: ['limit', 'cursor'], handles: [403] }),
  listBudgets: op('GET /budgets', 200, { query: ['limit', 'cursor', 'archived'] }),
  getBudget: op('GET /budgets/{id}', 200, { handles: [404] }),
  createBudget: op('POST /budgets', 201, { handles: [400, 403] }),
  suggestBudget: op('POST /budgets/suggest', 200, { handles: [400, 403] }),
  listBudgetVersions: op('GET /budgets/{id}/versions', 200, { query: ['limit', 'cursor'] }),
  exportBudgetCsv: op('GET /budgets/{id}/export.csv', 200, { handles: [404] }),
  importBudget: op('POST /budgets/{id}/import', 200, { handles: [400, 403, 404, 409] }),
  snoozeBudgetAlert: op('POST /alerts-v2/budgetAlerts/{id}/snooze', 200, { handles: [400, 403, 404, 409] }),
  unsnoozeBudgetAlert: op('DELETE /alerts-v2/budgetAlerts/{id}/snooze', 200, { handles: [403, 404, 409] }),
  updateBudget: op('PUT /budgets/{id}', 200, { handles: [400, 403, 404, 409] }),
  createBudgetAlert: op('POST /alerts-v2/budgetAlerts', 201, { handles: [400, 403] }),
  updateBudgetAlert: op('PUT /alerts-v2/budgetAlerts/{id}', 200, { handles: [400, 403, 404, 409] }),
  archiveBudgetAlert: op('DELETE /alerts-v2/budgetAlerts/{id}', 200, { handles: [403, 404] }),
  budgetStatus: op('GET /budgets/{id}/status', 200, { query: ['month'], handles: [404, 422] }),
  listBudgetAlerts: op('GET /alerts-v2/budgetAlerts', 200, {
    query: ['limit', 'budgetId', 'includeArchived'],
  }),
  budgetAlertHistory: op('GET /alerts-v2/budgetAlerts/{id}/history', 200, {
    query: ['limit'],
    handles: [404],
  }),
  listCommitments: op('GET /commitments', 200, { query: ['datePreset'], handles: [400, 422] }),
  commitmentSummary: op('GET /commitments/summary', 200, {
    query: ['datePreset', 'groupBy', 'granularity'],
    handles: [400, 422],
  }),
  expiringCommitments: op('GET /commitments/expiring', 200, { query: ['withinDays'], handles: [400] }),
  simulateCommitment: op('POST /commitments/simulate', 200, { handles: [400, 422] }),
  listUploads: op('GET /billing/uploads', 200, { query: ['limit', 'cursor'] }),
  getUpload: op('GET /billing/uploads/{id}', 200, { handles: [404] }),
  listAlerts: op('GET /alerts-v2/costAlerts', 200, { query: ['limit', 'includeArchived'] }),
  alertWidgetData: op('GET /alerts-v2/costAlerts/{id}/widgetData', 200, { handles: [404] }),
  alertHistory: op('GET /alerts-v2/costAlerts/{id}/history', 200, { query: ['limit'] }),
  snoozeAlert: op('POST /alerts-v2/costAlerts/{id}/snooze', 200, { handles: [400, 403, 404] }),
  unsnoozeAlert: op('DELETE /alerts-v2/costAlerts/{id}/snooze', 200, { handles: [403, 404] }),
  archiveAlert: op('DELETE /alerts-v2/costAlerts/{id}', 200, { handles: [403, 404] }),
  listCommitmentAlerts: op('GET /alerts-v2/commitmentAlerts', 200, { query: ['limit', 'includeArchived'] }),
  createCommitmentAlert: op('POST /alerts-v2/commitmentAlerts', 201, { handles: [400] }),
  updateCommitmentAlert: op('PUT /alerts-v2/commitmentAlerts/{id}', 200, { handles: [400, 403, 404, 409] }),
  snoozeCommitmentAlert: op('POST /alerts-v2/commitmentAlerts/{id}/snooze', 200, {
    handles: [400, 403, 404],
  }),
  unsnoozeCommitmentAlert: op('DELETE /alerts-v2/commitmentAlerts/{id}/snooze', 200, { handles: [403, 404] }),
  archiveCommitmentAlert: op('DELETE /alerts-v2/commitmentAlerts/{id}', 200, { handles: [403, 404] }),
  listReports: op('GET /reports', 200, { query: ['limit', 'includeArchived'] }),
  getReport: op('GET /reports/{id}', 200, { handles: [404] }),
  patchReport: op('PATCH /reports/{id}', 200, { handles: [400, 403, 404, 409] }),
  sendReport: op('POST /reports/{id}/send', 202, { handles: [400, 403, 404, 409] }),
  listDeliveries: op('GET /reports/{id}/deliveries', 200, { query: ['limit'] }),
} satisfies Record<string, Endpoint>;

export interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  ok: number;
  query?: readonly string[];
  handles?: readonly number[];
}

type Name = keyof typeof ENDPOINTS;
type QueryOf<N extends Name> = (typeof ENDPOINTS)[N] extends { query: readonly (infer Q extends string)[] }
  ? Partial<Record<Q, string>>
  : never;

/** The path of an endpoint with its `{params}` filled in (encoded); a missing one is an error. */
export function pathOf(name: Name, params: Record<string, string> = {}): string {
  return ENDPOINTS[name].path.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = params[k];
    if (v === undefined) throw new Error(`${name}: no value for {${k}}`);
    return encodeURIComponent(v);
  });
}

/** Calls one of `ENDPOINTS`. */
function call<N extends Name>(
  name: N,
  opts: {
    params?: Record<string, string>;
    query?: QueryOf<N>;
    body?: unknown;
    headers?: Record<string, string>;
    token?: string | null;
  } = {},
): Promise<unknown> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries((opts.query ?? {}) as Record<string, string | undefined>))
    if (v !== undefined && v !== '') q.set(k, v);
  const qs = q.toString() ? `?${q}` : '';
  return request<unknown>(
    ENDPOINTS[name].method,
    `${pathOf(name, opts.params)}${qs}`,
    opts.body,
    opts.headers,
    opts.token === undefined ? credential.get() : opts.token,
  );
}

export const api = {
  /** Checks a credential before it is kept (any member may list dashboards). */
  verify: (token: string) =>
    call('listDashboards', { query: { limit: '1' }, token }) as Promise<Page<Dashboard>>,
  dashboards: (q: { type?: string; teamId?: string; cursor?: string | null }) =>
    call('listDashboards', {
      query: { limit: '50', type: q.type, teamId: q.teamId, cursor: q.cursor ?? undefined },
    }) as Promise<Page<Dashboard>>,
  dashboard: (id: string) => call('getDashboard', { params: { id } }) as Promise<Dashboard>,
  versions: (id: string) =>
    call('listDashboardVersions', { params: { id }, query: { limit: '20' } }) as Promise<
      Page<{ version: number; name: string; createdAt: string; createdById: string; widgetCount: number }>
    >,
  widgetData: (id: string, key: string) =>
    call('widgetData', { params: { id, key } }) as Promise<ExplorerResult>,
  explore: (req: ExplorerRequest, conditions: WhereClause | null = null, currency: string | null = null) =>
    call('explore', {
      body: { request: req, ...(conditions ? { conditions } : {}), ...(currency ? { currency } : {}) },
    }) as Promise<ExplorerResult>,
  dimensions: () => call('listDimensions') as Promise<DimensionEntry[]>,
  candidates: () => call('candidates') as Promise<Candidate[]>,
  refreshStatus: () =>
    call('refreshStatus') as Promise<{
      state: string;
      lastSucceededAt?: string;
      finishedAt?: string;
      lastError?: string;
      warnings?: string[];
    }>,
  publishDimensions: (body: Record<string, unknown>) =>
    call('publishDimensions', { body }) as Promise<{
      ok: boolean;
      publishedLabels: boolean;
      unpublished: { kind: string; name: string; errors: { kind: string; message: string }[] }[];
    }>,
  publish: (id: string, body: Record<string, unknown>) =>
    call('publishDashboard', { params: { id }, body }) as Promise<Dashboard>,
  create: (body: Record<string, unknown>) => call('createDashboard', { body }) as Promise<Dashboard>,

  /** Who the credential is (any principal): the header. */
  me: () => call('getMe') as Promise<Me>,
  /** The organisation's users (admins only: a member's call is refused with 403). */
  users: (cursor?: string) =>
    call('listUsers', { query: { limit: '100', cursor } }) as Promise<
      Page<{ id: string; name: string; email: string }>
    >,

  budgets: () => call('listBudgets', { query: { limit: '100' } }) as Promise<Page<Budget>>,
  budget: (id: string) => call('getBudget', { params: { id } }) as Promise<Budget>,
  /** A new version of the budget, written only if `versionNumber` is still the latest (409 otherwise). */
  updateBudget: (id: string, versionNumber: number, body: Record<string, unknown>) =>
    call('updateBudget', {
      params: { id },
      body,
      headers: { 'if-match': `"${versionNumber}"` },
    }) as Promise<Budget>,
  createBudget: (body: Record<string, unknown>) => call('createBudget', { body }) as Promise<Budget>,
  suggestBudget: (body: Record<string, unknown>) => call('suggestBudget', { body }) as Promise<Suggestion>,
  budgetVersions: (id: string) =>
    call('listBudgetVersions', { params: { id }, query: { limit: '100' } }) as Promise<Page<BudgetVersion>>,
  /** The lines × months grid as CSV (`text/csv`). */
  budgetCsv: (id: string) => call('exportBudgetCsv', { params: { id } }) as Promise<string>,
  /** Replaces the lines from a CSV grid: a new version, written only if `versionNumber` is still the latest. */
  importBudgetCsv: (id: string, versionNumber: number, csv: string) =>
    call('importBudget', {
      params: { id },
      body: { csv },
      headers: { 'if-match': `"${versionNumber}"` },
    }) as Promise<Budget>,
  snoozeBudgetAlert: (id: string, until: string) =>
    call('snoozeBudgetAlert', { params: { id }, body: { until } }) as Promise<BudgetAlert>,
  unsnoozeBudgetAlert: (id: string) =>
    call('unsnoozeBudgetAlert', { params: { id } }) as Promise<BudgetAlert>,
  createBudgetAlert: (body: Record<string, unknown>) =>
    call('createBudgetAlert', { body }) as Promise<BudgetAlert>,
  updateBudgetAlert: (id: string, body: Record<string, unknown>) =>
    call('updateBudgetAlert', { params: { id }, body }) as Promise<BudgetAlert>,
  archiveBudgetAlert: (id: string) => call('archiveBudgetAlert', { params: { id } }) as Promise<BudgetAlert>,
  budgetStatus: (id: string, month?: string) =>
    call('budgetStatus', { params: { id }, query: { month } }) as Promise<BudgetStatus>,
  budgetAlerts: (budgetId: string) =>
    call('listBudgetAlerts', { query: { limit: '100', budgetId } }) as Promise<Page<BudgetAlert>>,
  budgetAlertHistory: (id: string) =>
    call('budgetAlertHistory', { params: { id }, query: { limit: '100' } }) as Promise<
      Page<BudgetAlertEvaluation>
    >,

  commitments: (datePreset: string) =>
    call('listCommitments', { query: { datePreset } }) as Promise<Inventory>,
  commitmentSummary: (datePreset: string, granularity: string) =>
    call('commitmentSummary', {
      query: { datePreset, granularity, groupBy: 'provider' },
    }) as Promise<Summary>,
  expiringCommitments: () =>
    call('expiringCommitments', { query: { withinDays: '90' } }) as Promise<Expiring>,
  simulate: (body: Record<string, unknown>) => call('simulateCommitment', { body }) as Promise<Simulation>,
  uploads: (cursor?: string) =>
    call('listUploads', { query: { limit: '100', cursor } }) as Promise<Page<Upload>>,
  upload: (id: string) => call('getUpload', { params: { id } }) as Promise<Upload>,

  alerts: (includeArchived: boolean) =>
    call('listAlerts', {
      query: { limit: '100', includeArchived: String(includeArchived) },
    }) as Promise<Page<CostAlert>>,
  alertWidgetData: (id: string) => call('alertWidgetData', { params: { id } }) as Promise<AlertWidgetData>,
  alertHistory: (id: string) =>
    call('alertHistory', { params: { id }, query: { limit: '50' } }) as Promise<Page<AlertEvaluation>>,
  snoozeAlert: (id: string, until: string) =>
    call('snoozeAlert', { params: { id }, body: { until } }) as Promise<CostAlert>,
  unsnoozeAlert: (id: string) => call('unsnoozeAlert', { params: { id } }) as Promise<CostAlert>,
  archiveAlert: (id: string) => call('archiveAlert', { params: { id } }) as Promise<CostAlert>,
  commitmentAlerts: (includeArchived: boolean) =>
    call('listCommitmentAlerts', {
      query: { limit: '100', includeArchived: String(includeArchived) },
    }) as Promise<Page<CommitmentAlert>>,
  createCommitmentAlert: (body: CommitmentAlertInput) =>
    call('createCommitmentAlert', { body }) as Promise<CommitmentAlert>,
  /** Replaces the alert's definition if it is still at `version` (409 VERSION_CONFLICT, or ALERT_ARCHIVED, otherwise). */
  updateCommitmentAlert: (id: string, version: number, body: CommitmentAlertInput) =>
    call('updateCommitmentAlert', {
      params: { id },
      body,
      headers: { 'if-match': `"${version}"` },
    }) as Promise<CommitmentAlert>,
  snoozeCommitmentAlert: (id: string, until: string) =>
    call('snoozeCommitmentAlert', { params: { id }, body: { until } }) as Promise<CommitmentAlert>,
  unsnoozeCommitmentAlert: (id: string) =>
    call('unsnoozeCommitmentAlert', { params: { id } }) as Promise<CommitmentAlert>,
  archiveCommitmentAlert: (id: string) =>
    call('archiveCommitmentAlert', { params: { id } }) as Promise<CommitmentAlert>,

  reports: (includeArchived: boolean) =>
    call('listReports', { query: { limit: '100', includeArchived: String(includeArchived) } }) as Promise<
      Page<Report>
    >,
  report: (id: string) => call('getReport', { params: { id } }) as Promise<Report>,
  patchReport: (id: string, version: number, body: Record<string, unknown>) =>
    call('patchReport', { params: { id }, body, headers: { 'if-match': `"${version}"` } }) as Promise<Report>,
  sendReport: (id: string) =>
    call('sendReport', { params: { id } }) as Promise<{
      reportId: string;
      runAt: string;
      destinations: number;
    }>,
  deliveries: (id: string) =>
    call('listDeliveries', { params: { id }, query: { limit: '50' } }) as Promise<Page<Delivery>>,
};
