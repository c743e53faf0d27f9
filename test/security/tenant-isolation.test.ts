import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateSigningKey, mintToken } from '../../infra/local/idp';
import type { RouteDef } from '../../shared/http/route';
import { routes } from '../../shared/routes';
import { budgetAlertBody } from '../fixtures/budgets/alert-body';
import { budgetBody } from '../fixtures/budgets/body';
import { simpleWidget } from '../fixtures/dashboards/realistic';
import { CUR_SAMPLE } from '../integration/warehouse/support';
import { script } from '../support/cli';
import { api, session } from '../support/session';
import { thresholdBody } from '../unit/alerts/fixtures';
import { sampleDocument } from '../unit/enrichments/fixtures';

/**
 * Tenant isolation, route by route of the manifest (docs/security.md). Organisation A (the
 * session's `orgId`) owns one record of every kind; organisation B's admin, once with its `ak_` key
 * and once with a session JWT, calls every route that takes a path parameter with A's ids: each
 * answer is 404 or 403 in the spec's `{error}` shape and A's record reads the same afterwards.
 * Every list route called by B names none of A's ids.
 *
 * A route with a path parameter needs an entry in `FIXTURES` (keyed by route id): a new route
 * without one fails here by its id, so it cannot ship uncovered.
 */

const s = () => session();
const owner = () => s().apiKeys.admin;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
/** The name of every record of A; no answer to B may contain it. */
const RECORD_NAME = `Isolation ${run}`;

/** Org A's records, created once. */
interface Records {
  reportId: string;
  dashboardId: string;
  enrichment: string;
  teamId: string;
  operationId: string;
  scopeId: string;
  userId: string;
  datasourceId: string;
  apiKeyId: string;
  vdimId: string;
  alertId: string;
  /** A's upload that replaced an earlier one (so it has a version to restore). */
  uploadId: string;
  budgetId: string;
  budgetAlertId: string;
  commitmentAlertId: string;
}

interface Case {
  /** The path with A's values in place of its parameters. */
  path: string;
  /** A body the route would accept from A, so a refusal is about the organisation, not the body. */
  body?: unknown;
  /** What A reads of the record the route touches, before and after B's call. */
  snapshot: () => Promise<unknown>;
  /**
   * The parameter is a name in the caller's own namespace, not a record id (an enrichment's name,
   * a user's IdP id): B may then act on B's own record of that name (2xx), but A's stays unchanged.
   */
  ownNamespace?: true;
}

async function read(path: string): Promise<unknown> {
  const res = await api('GET', path, { token: owner() });
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body;
}

async function findIn(path: string, id: string): Promise<unknown> {
  const body = (await read(path)) as { items: { id: string }[] };
  const found = body.items.find((i) => i.id === id);
  expect({ path, id, found: found !== undefined }).toEqual({ path, id, found: true });
  return found;
}

const pointsQuery = '?from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z';
const reportSnap = (r: Records) => async () => ({
  report: await read(`/reports/${r.reportId}`),
  deliveries: await read(`/reports/${r.reportId}/deliveries`),
});
const dashboardSnap = (r: Records) => async () => ({
  dashboard: await read(`/dashboard-v2/${r.dashboardId}`),
  versions: await read(`/dashboard-v2/${r.dashboardId}/versions`),
});
const teamSnap = (r: Records) => () => read(`/iac/teams/${r.teamId}`);
const alertSnap = (r: Records) => async () => ({
  alert: await findIn('/alerts-v2/costAlerts?limit=100', r.alertId),
  history: await read(`/alerts-v2/costAlerts/${r.alertId}/history`),
});
const datasourceSnap = (r: Records) => async () => ({
  datasource: await read(`/iac/metricsDatasources/${r.datasourceId}`),
  points: await read(`/metrics-datasources/${r.datasourceId}/points${pointsQuery}`),
});
const vdimSnap = (r: Records) => () => read(`/dimensions/vdims/${r.vdimId}`);
const enrichmentSnap = (r: Records) => () => read(`/enrichments/${r.enrichment}`);
const uploadSnap = (r: Records) => () => read(`/billing/uploads/${r.uploadId}`);
const budgetAlertSnap = (r: Records) => async () => ({
  alert: await read(`/alerts-v2/budgetAlerts/${r.budgetAlertId}`),
  history: await read(`/alerts-v2/budgetAlerts/${r.budgetAlertId}/history`),
});
const budgetSnap = (r: Records) => async () => ({
  budget: await read(`/budgets/${r.budgetId}`),
  versions: await read(`/budgets/${r.budgetId}/versions`),
});

/**
 * Two parts of one CUR ingested one at a time into A (`npm run ingest`): the second replaces the
 * first, so it has a version to restore. Answers the second's upload id.
 */
function replacingUpload(): string {
  const [header, ...data] = readFileSync(CUR_SAMPLE, 'utf8').trimEnd().split('\n') as [string, ...string[]];
  const dir = join(s().stateDir, `isolation-upload-${run}`);
  mkdirSync(dir, { recursive: true });
  let id = '';
  for (const [i, lines] of [data.slice(0, 900), data.slice(900)].entries()) {
    const file = join(dir, `cur-${i + 1}.csv`);
    writeFileSync(file, `${[header, ...lines].join('\n')}\n`);
    const out = script('ingest.ts', ['--session', process.env.TEST_SESSION_FILE ?? '', file]);
    expect(out.status).toBe(0);
    id = /upload (upl_[a-f0-9]{26})/.exec(out.stdout)?.[1] ?? '';
  }
  expect(id).toMatch(/^upl_/);
  return id;
}

/** One entry per manifest route with a path parameter. */
const FIXTURES: Record<string, (r: Records) => Case> = {
  getBudget: (r) => ({ path: `/budgets/${r.budgetId}`, snapshot: budgetSnap(r) }),
  getBudgetAlert: (r) => ({
    path: `/alerts-v2/budgetAlerts/${r.budgetAlertId}`,
    snapshot: budgetAlertSnap(r),
  }),
  updateBudgetAlert: (r) => ({
    path: `/alerts-v2/budgetAlerts/${r.budgetAlertId}`,
    body: budgetAlertBody(r.budgetId, { name: 'hijack' }),
    snapshot: budgetAlertSnap(r),
  }),
  archiveBudgetAlert: (r) => ({
    path: `/alerts-v2/budgetAlerts/${r.budgetAlertId}`,
    snapshot: budgetAlertSnap(r),
  }),
  snoozeBudgetAlert: (r) => ({
    path: `/alerts-v2/budgetAlerts/${r.budgetAlertId}/snooze`,
    body: { until: '2099-01-01T00:00:00Z' },
    snapshot: budgetAlertSnap(r),
  }),
  unsnoozeBudgetAlert: (r) => ({
    path: `/alerts-v2/budgetAlerts/${r.budgetAlertId}/snooze`,
    snapshot: budgetAlertSnap(r),
  }),
  archiveCommitmentAlert: (r) => ({
    path: `/alerts-v2/commitmentAlerts/${r.commitmentAlertId}`,
    snapshot: () => findIn('/alerts-v2/commitmentAlerts?includeArchived=true&limit=100', r.commitmentAlertId),
  }),
  snoozeCommitmentAlert: (r) => ({
    path: `/alerts-v2/commitmentAlerts/${r.commitmentAlertId}/snooze`,
    body: { until: '2099-01-01T00:00:00Z' },
    snapshot: () => findIn('/alerts-v2/commitmentAlerts?includeArchived=true&limit=100', r.commitmentAlertId),
  }),
  updateCommitmentAlert: (r) => ({
    path: `/alerts-v2/commitmentAlerts/${r.commitmentAlertId}`,
    body: { name: 'hijack', withinDays: 90, notificationChannel: 'EMAIL', emails: ['hijack@example.com'] },
    snapshot: () => findIn('/alerts-v2/commitmentAlerts?includeArchived=true&limit=100', r.commitmentAlertId),
  }),
  unsnoozeCommitmentAlert: (r) => ({
    path: `/alerts-v2/commitmentAlerts/${r.commitmentAlertId}/snooze`,
    snapshot: () => findIn('/alerts-v2/commitmentAlerts?includeArchived=true&limit=100', r.commitmentAlertId),
  }),
  budgetAlertHistory: (r) => ({
    path: `/alerts-v2/budgetAlerts/${r.budgetAlertId}/history`,
    snapshot: budgetAlertSnap(r),
  }),
  updateBudget: (r) => ({
    path: `/budgets/${r.budgetId}`,
    body: budgetBody({ name: 'hijack' }),
    snapshot: budgetSnap(r),
  }),
  archiveBudget: (r) => ({ path: `/budgets/${r.budgetId}`, snapshot: budgetSnap(r) }),
  listBudgetVersions: (r) => ({ path: `/budgets/${r.budgetId}/versions`, snapshot: budgetSnap(r) }),
  exportBudgetCsv: (r) => ({ path: `/budgets/${r.budgetId}/export.csv`, snapshot: budgetSnap(r) }),
  importBudget: (r) => ({
    path: `/budgets/${r.budgetId}/import`,
    body: { csv: 'value,owner,2026-01\r\n,,5\r\n' },
    snapshot: budgetSnap(r),
  }),
  getBudgetStatus: (r) => ({ path: `/budgets/${r.budgetId}/status?month=2026-01`, snapshot: budgetSnap(r) }),
  getReport: (r) => ({ path: `/reports/${r.reportId}`, snapshot: reportSnap(r) }),
  patchReport: (r) => ({ path: `/reports/${r.reportId}`, body: { name: 'hijack' }, snapshot: reportSnap(r) }),
  duplicateReport: (r) => ({
    path: `/reports/${r.reportId}/duplicate`,
    body: { name: 'hijack' },
    snapshot: reportSnap(r),
  }),
  archiveReport: (r) => ({ path: `/reports/${r.reportId}`, snapshot: reportSnap(r) }),
  sendReport: (r) => ({ path: `/reports/${r.reportId}/send`, snapshot: reportSnap(r) }),
  listReportDeliveries: (r) => ({ path: `/reports/${r.reportId}/deliveries`, snapshot: reportSnap(r) }),
  getEnrichment: (r) => ({ path: `/enrichments/${r.enrichment}`, snapshot: enrichmentSnap(r) }),
  putEnrichment: (r) => ({
    path: `/enrichments/${r.enrichment}`,
    body: sampleDocument({ name: r.enrichment, description: 'hijack' }),
    ownNamespace: true,
    snapshot: enrichmentSnap(r),
  }),
  deleteEnrichment: (r) => ({
    path: `/enrichments/${r.enrichment}`,
    ownNamespace: true,
    snapshot: enrichmentSnap(r),
  }),
  getDashboard: (r) => ({ path: `/dashboard-v2/${r.dashboardId}`, snapshot: dashboardSnap(r) }),
  publishDashboard: (r) => ({
    path: `/dashboard-v2/${r.dashboardId}`,
    body: { name: 'hijack', widgets: [] },
    snapshot: dashboardSnap(r),
  }),
  patchDashboard: (r) => ({
    path: `/dashboard-v2/${r.dashboardId}`,
    body: { name: 'hijack' },
    snapshot: dashboardSnap(r),
  }),
  archiveDashboard: (r) => ({ path: `/dashboard-v2/${r.dashboardId}`, snapshot: dashboardSnap(r) }),
  listDashboardVersions: (r) => ({
    path: `/dashboard-v2/${r.dashboardId}/versions`,
    snapshot: dashboardSnap(r),
  }),
  getDashboardVersion: (r) => ({
    path: `/dashboard-v2/${r.dashboardId}/versions/1`,
    snapshot: dashboardSnap(r),
  }),
  getWidgetData: (r) => ({
    path: `/dashboard-v2/${r.dashboardId}/widgets/w1/data`,
    snapshot: dashboardSnap(r),
  }),
  syncTeam: (r) => ({
    path: `/iac/teams/${r.teamId}/SYNC`,
    body: { members: [] },
    snapshot: teamSnap(r),
  }),
  getTeamOperation: (r) => ({
    path: `/iac/teams/${r.teamId}/operations/${r.operationId}`,
    snapshot: () => read(`/iac/teams/${r.teamId}/operations/${r.operationId}`),
  }),
  getTeam: (r) => ({ path: `/iac/teams/${r.teamId}`, snapshot: teamSnap(r) }),
  patchTeam: (r) => ({
    path: `/iac/teams/${r.teamId}`,
    body: { name: `hijack ${run}` },
    snapshot: teamSnap(r),
  }),
  deleteTeam: (r) => ({ path: `/iac/teams/${r.teamId}`, snapshot: teamSnap(r) }),
  getScope: (r) => ({ path: `/iac/scopes/${r.scopeId}`, snapshot: () => read(`/iac/scopes/${r.scopeId}`) }),
  patchScope: (r) => ({
    path: `/iac/scopes/${r.scopeId}`,
    body: { name: 'hijack' },
    snapshot: () => read(`/iac/scopes/${r.scopeId}`),
  }),
  deleteScope: (r) => ({
    path: `/iac/scopes/${r.scopeId}`,
    snapshot: () => read(`/iac/scopes/${r.scopeId}`),
  }),
  putUser: (r) => ({
    path: `/iac/users/${r.userId}`,
    body: { email: `hijack-${run}@example.com`, name: 'Hijack' },
    ownNamespace: true,
    snapshot: () => findIn('/iac/users?limit=100', r.userId),
  }),
  getMetricsDatasource: (r) => ({
    path: `/iac/metricsDatasources/${r.datasourceId}`,
    snapshot: datasourceSnap(r),
  }),
  archiveMetricsDatasource: (r) => ({
    path: `/iac/metricsDatasources/${r.datasourceId}`,
    snapshot: datasourceSnap(r),
  }),
  pushMetricPoints: (r) => ({
    path: `/metrics-datasources/${r.datasourceId}/points`,
    body: { points: [{ timestamp: '2026-01-01T12:00:00Z', value: 99 }] },
    snapshot: datasourceSnap(r),
  }),
  readMetricPoints: (r) => ({
    path: `/metrics-datasources/${r.datasourceId}/points${pointsQuery}`,
    snapshot: datasourceSnap(r),
  }),
  revokeApiKey: (r) => ({ path: `/api-keys/${r.apiKeyId}`, snapshot: () => findIn('/api-keys', r.apiKeyId) }),
  getVirtualDimension: (r) => ({ path: `/dimensions/vdims/${r.vdimId}`, snapshot: vdimSnap(r) }),
  getBillingUpload: (r) => ({ path: `/billing/uploads/${r.uploadId}`, snapshot: uploadSnap(r) }),
  restoreBillingUpload: (r) => ({ path: `/billing/uploads/${r.uploadId}/restore`, snapshot: uploadSnap(r) }),
  updateVirtualDimension: (r) => ({
    path: `/dimensions/vdims/${r.vdimId}`,
    body: vdimBody(`hijack_${run}`),
    snapshot: vdimSnap(r),
  }),
  deleteVirtualDimension: (r) => ({ path: `/dimensions/vdims/${r.vdimId}`, snapshot: vdimSnap(r) }),
  getCostAlertWidgetData: (r) => ({
    path: `/alerts-v2/costAlerts/${r.alertId}/widgetData`,
    snapshot: alertSnap(r),
  }),
  updateCostAlert: (r) => ({
    path: `/alerts-v2/costAlerts/${r.alertId}`,
    body: thresholdBody({ name: 'hijack' }),
    snapshot: alertSnap(r),
  }),
  archiveCostAlert: (r) => ({ path: `/alerts-v2/costAlerts/${r.alertId}`, snapshot: alertSnap(r) }),
  snoozeCostAlert: (r) => ({
    path: `/alerts-v2/costAlerts/${r.alertId}/snooze`,
    body: { until: new Date(Date.now() + 86_400_000).toISOString() },
    snapshot: alertSnap(r),
  }),
  unsnoozeCostAlert: (r) => ({ path: `/alerts-v2/costAlerts/${r.alertId}/snooze`, snapshot: alertSnap(r) }),
  costAlertHistory: (r) => ({ path: `/alerts-v2/costAlerts/${r.alertId}/history`, snapshot: alertSnap(r) }),
};

function vdimBody(name: string) {
  return {
    name,
    description: 'isolation probe',
    rules: [
      {
        value: 'cloud-a',
        whereClause: { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] },
      },
    ],
    defaultValue: 'other',
  };
}

async function created<T>(method: string, path: string, body: unknown): Promise<T> {
  const res = await api<T>(method, path, { token: owner(), body });
  expect({ path, status: res.status }).toEqual({ path, status: method === 'PUT' ? 200 : 201 });
  return res.body;
}

const hasParams = (def: RouteDef) => def.path.includes('{');
let records: Records;
let attackers: [string, string][];

beforeAll(async () => {
  const team = await created<{ id: string }>('POST', '/iac/teams', { name: RECORD_NAME });
  const sync = await api<{ syncId: string }>('POST', `/iac/teams/${team.id}/SYNC`, {
    token: owner(),
    // Past 40 new invitations (SYNC_INLINE_LIMITS) a sync is queued and gets an operation id.
    body: {
      members: [
        { userId: s().users.member },
        ...Array.from({ length: 101 }, (_, i) => ({ email: `iso-${run}-${i}@example.org` })),
      ],
    },
  });
  expect(sync).toMatchObject({ status: 202, body: { syncId: expect.any(String) } });
  // Let the worker finish it, so the team and the operation no longer move under the snapshots.
  const operation = `/iac/teams/${team.id}/operations/${sync.body.syncId}`;
  for (let i = 0; ; i++) {
    const op = await api<{ status: string }>('GET', operation, { token: owner() });
    if (op.body.status === 'SUCCEEDED' || op.body.status === 'FAILED') break;
    if (i > 200) throw new Error(`team sync ${sync.body.syncId} did not finish`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const enrichment = `iso-${run}`;
  await api('PUT', `/enrichments/${enrichment}`, {
    token: owner(),
    body: sampleDocument({ name: enrichment }),
  }).then((res) => expect([200, 201]).toContain(res.status));
  records = {
    reportId: (
      await created<{ id: string }>('POST', '/reports', {
        name: RECORD_NAME,
        scheduledPeriod: 'WEEKLY',
        scheduledWeekday: 1,
      })
    ).id,
    dashboardId: (
      await created<{ id: string }>('POST', '/dashboard-v2', {
        name: RECORD_NAME,
        widgets: [simpleWidget('w1')],
      })
    ).id,
    enrichment,
    teamId: team.id,
    operationId: sync.body.syncId,
    scopeId: (
      await created<{ id: string }>('POST', '/iac/scopes', {
        name: RECORD_NAME,
        teamIds: [team.id],
        filters: { provider: ['AWS'] },
      })
    ).id,
    userId: s().users.member,
    datasourceId: (
      await created<{ id: string }>('POST', '/iac/metricsDatasources', {
        name: RECORD_NAME,
        unit: 'orders',
      })
    ).id,
    apiKeyId: (await created<{ id: string }>('POST', '/api-keys', { name: `isolation ${run}` })).id,
    vdimId: (await created<{ id: string }>('POST', '/dimensions/vdims', vdimBody(`iso_${run}`))).id,
    alertId: (
      await created<{ id: string }>('POST', '/alerts-v2/costAlerts', thresholdBody({ name: RECORD_NAME }))
    ).id,
    uploadId: replacingUpload(),
    budgetId: (await created<{ id: string }>('POST', '/budgets', budgetBody({ name: RECORD_NAME }))).id,
    budgetAlertId: '',
    commitmentAlertId: '',
  };
  records.commitmentAlertId = (
    await created<{ id: string }>('POST', '/alerts-v2/commitmentAlerts', {
      name: RECORD_NAME,
      withinDays: 60,
      notificationChannel: 'EMAIL',
      emails: ['owner@example.com'],
    })
  ).id;
  records.budgetAlertId = (
    await created<{ id: string }>(
      'POST',
      '/alerts-v2/budgetAlerts',
      budgetAlertBody(records.budgetId, { name: RECORD_NAME }),
    )
  ).id;
  const key = await loadOrCreateSigningKey(s().stateDir);
  const jwt = await mintToken(key, { userId: s().users.outsider, orgId: s().otherOrgId, role: 'admin' });
  // The control: B's JWT is a working credential (so each refusal below is about the organisation).
  expect((await api('GET', '/reports', { token: jwt })).status).toBe(200);
  attackers = [
    ['ak_ key', s().apiKeys.outsider],
    ['JWT', jwt],
  ];
}, 120_000);

describe('every route with a path parameter has an isolation fixture', () => {
  it('no manifest route is without one, and no fixture names a route that is gone', () => {
    const withParams = routes.filter(hasParams).map((r) => r.id);
    expect(withParams.filter((id) => !(id in FIXTURES))).toEqual([]);
    expect(Object.keys(FIXTURES).filter((id) => !withParams.includes(id))).toEqual([]);
  });
});

describe("organisation B calling A's ids gets 404/403 {error} and changes nothing", () => {
  it.each(routes.filter(hasParams).map((r) => [r.id, r] as const))('%s', async (id, def) => {
    const fixture = FIXTURES[id];
    if (!fixture) throw new Error(`route ${id} has no tenant-isolation fixture in FIXTURES`);
    const c = fixture(records);
    const before = await c.snapshot();
    for (const [label, token] of attackers) {
      const res = await api(def.method, c.path, {
        token,
        ...(c.body !== undefined ? { body: c.body } : {}),
      });
      // Nothing of A's record comes back, whatever the answer.
      expect({ label, leak: JSON.stringify(res.body).includes(RECORD_NAME) }).toEqual({ label, leak: false });
      if (c.ownNamespace && res.status < 300) continue;
      expect({
        label,
        status: [403, 404].includes(res.status) ? 'refused' : res.status,
        body: res.body,
      }).toEqual({
        label,
        status: 'refused',
        body: expect.objectContaining({ error: expect.any(String) }),
      });
    }
    expect(await c.snapshot()).toEqual(before);
  });
});

describe("organisation B's lists never name A's records", () => {
  it.each(routes.filter((r) => r.method === 'GET' && !hasParams(r)).map((r) => [r.id, r] as const))(
    '%s',
    async (_id, def) => {
      // A user id is the IdP's, and PUT /iac/users/{id} by B enrols it in B (own namespace).
      const ids = [...Object.values(records).filter((v) => v !== records.userId), RECORD_NAME];
      for (const [label, token] of attackers) {
        const res = await api(def.method, def.path, { token });
        expect(res.status).toBeLessThan(500);
        const text = JSON.stringify(res.body);
        expect({ label, leaked: ids.filter((v) => text.includes(v)) }).toEqual({ label, leaked: [] });
      }
    },
  );
});
