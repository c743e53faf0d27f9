import type { RouteDef } from '../../shared/http/route';
import { routes } from '../../shared/routes';
import { budgetAlertBody } from '../fixtures/budgets/alert-body';
import { budgetBody } from '../fixtures/budgets/body';
import { objectsIn, recordsIn, type SchemaNode } from '../support/schema-walk';
import { api, session } from '../support/session';
import { thresholdBody } from '../unit/alerts/fixtures';
import { sampleDocument } from '../unit/enrichments/fixtures';

/**
 * Mass assignment (docs/security.md): a body may not set what the server owns. For every manifest
 * route with a body, its schema is closed (a strict object, so an unknown key is a 400) and
 * declares none of `organizationId`, `createdById`, `archivedAt` (nor `version` unless the spec
 * body has it). Then, over HTTP, every route that stores what it is sent gets each of those fields
 * on top of a body it accepts: the answer is a 400, or a 2xx that neither answers nor stores the
 * value, and the stored record is as before.
 */

const s = () => session();
const owner = () => s().apiKeys.admin;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ARCHIVED_AT = '2001-02-03T04:05:06.000Z';
const UNKNOWN = 'massAssignmentProbe';
const OWNED = ['organizationId', 'createdById', 'archivedAt'] as const;

const withBody = (r: RouteDef) => r.body !== undefined;

// --- the schemas -------------------------------------------------------------------------------

/** The object schemas a body schema may be at its top (through unions, variants and wrappers). */
function objectsOf(schema: SchemaNode): SchemaNode[] {
  if (schema.entries) return [schema];
  if (schema.options) return schema.options.flatMap(objectsOf);
  if (schema.wrapped) return objectsOf(schema.wrapped);
  return [schema];
}

describe('every body schema of the manifest is closed and declares no server-owned field', () => {
  it.each(routes.filter(withBody).map((r) => [r.id, r] as const))('%s', (_id, def) => {
    for (const schema of objectsOf(def.body as SchemaNode)) {
      expect({ route: def.id, type: schema.type }).toEqual({ route: def.id, type: 'strict_object' });
      const keys = Object.keys(schema.entries ?? {});
      expect({ route: def.id, owned: keys.filter((k) => (OWNED as readonly string[]).includes(k)) }).toEqual({
        route: def.id,
        owned: [],
      });
    }
  });

  // Nested objects too (a widget, a query, a where clause, a threshold, a team member…): an unknown
  // key anywhere is a 400. Free-form maps (`record`: dashboard `conditions`, enrichment entry
  // values) are keyed by the client by design and are not objects of the schema.
  it.each(routes.filter(withBody).map((r) => [r.id, r] as const))('%s (nested objects)', (_id, def) => {
    const loose = objectsIn(def.body as SchemaNode)
      .filter((o) => o.schema.type !== 'strict_object')
      .map((o) => `${o.path || '(body)'}: ${o.schema.type}`);
    expect({ route: def.id, loose }).toEqual({ route: def.id, loose: [] });
  });
});

// --- over HTTP -----------------------------------------------------------------------------------

interface Case {
  method: string;
  path: string;
  /** A body the route accepts (the control sends it alone first). */
  body: () => unknown;
  /** What A reads of the record the route writes; absent for a create (its answer is read). */
  read?: () => Promise<unknown>;
}

async function get(path: string): Promise<unknown> {
  const res = await api('GET', path, { token: owner() });
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.body;
}

async function create(path: string, body: unknown): Promise<string> {
  const res = await api<{ id: string }>('POST', path, { token: owner(), body });
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body.id;
}

const reportBody = () => ({
  name: `Mass ${run} ${Math.random()}`,
  scheduledPeriod: 'WEEKLY',
  scheduledWeekday: 1,
});
const vdimBody = () => ({
  name: `mass_${run}_${Math.random().toString(36).slice(2, 7)}`,
  description: 'mass assignment probe',
  rules: [
    {
      value: 'cloud-a',
      whereClause: { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] },
    },
  ],
  defaultValue: 'other',
});
const commitmentAlertBody = () => ({
  name: unique('Mass'),
  withinDays: 60,
  notificationChannel: 'EMAIL',
  emails: ['owner@example.com'],
});
const readCommitmentAlert = async (id: string) =>
  (
    (await get('/alerts-v2/commitmentAlerts?includeArchived=true&limit=100')) as {
      items: { id: string }[];
    }
  ).items.find((a) => a.id === id);
const unique = (label: string) => `${label} ${run} ${Math.random().toString(36).slice(2, 7)}`;

/** Routes that store what they are sent, with a record of the session's org to aim at. */
/** A new threshold cost alert: its id, and a read of it from the alert list. */
async function newCostAlert() {
  const id = await create('/alerts-v2/costAlerts', thresholdBody({ name: unique('Mass') }));
  const read = async () =>
    ((await get('/alerts-v2/costAlerts?limit=100')) as { items: { id: string }[] }).items.find(
      (a) => a.id === id,
    );
  return { id, read };
}

/** A new budget with a budget alert: both ids. */
async function newBudgetAlert() {
  const budgetId = await create('/budgets', budgetBody({ name: unique('Mass') }));
  const id = await create('/alerts-v2/budgetAlerts', budgetAlertBody(budgetId, { name: unique('Mass') }));
  return { budgetId, id };
}

/** A snooze body: until a day from now. */
const snoozeForADay = () => ({ until: new Date(Date.now() + 86_400_000).toISOString() });

const STORING: Record<string, () => Promise<Case>> = {
  createBudget: async () => ({
    method: 'POST',
    path: '/budgets',
    body: () => budgetBody({ name: unique('Mass') }),
  }),
  updateBudget: async () => {
    const id = await create('/budgets', budgetBody({ name: unique('Mass') }));
    return {
      method: 'PUT',
      path: `/budgets/${id}`,
      body: () => budgetBody({ name: unique('Saved') }),
      read: () => get(`/budgets/${id}`),
    };
  },
  createReport: async () => ({ method: 'POST', path: '/reports', body: reportBody }),
  patchReport: async () => {
    const id = await create('/reports', reportBody());
    return {
      method: 'PATCH',
      path: `/reports/${id}`,
      body: () => ({ name: unique('Patched') }),
      read: () => get(`/reports/${id}`),
    };
  },
  duplicateReport: async () => {
    const id = await create('/reports', reportBody());
    return { method: 'POST', path: `/reports/${id}/duplicate`, body: () => ({ name: unique('Copy') }) };
  },
  putEnrichment: async () => {
    const name = `mass-${run}`;
    return {
      method: 'PUT',
      path: `/enrichments/${name}`,
      body: () => sampleDocument({ name }),
      read: () => get(`/enrichments/${name}`),
    };
  },
  createDashboard: async () => ({
    method: 'POST',
    path: '/dashboard-v2',
    body: () => ({ name: unique('Mass'), widgets: [] }),
  }),
  publishDashboard: async () => {
    const id = await create('/dashboard-v2', { name: unique('Mass'), widgets: [] });
    return {
      method: 'PUT',
      path: `/dashboard-v2/${id}`,
      body: () => ({ name: unique('Published'), widgets: [] }),
      read: () => get(`/dashboard-v2/${id}`),
    };
  },
  patchDashboard: async () => {
    const id = await create('/dashboard-v2', { name: unique('Mass'), widgets: [] });
    return {
      method: 'PATCH',
      path: `/dashboard-v2/${id}`,
      body: () => ({ name: unique('Patched') }),
      read: () => get(`/dashboard-v2/${id}`),
    };
  },
  createTeam: async () => ({ method: 'POST', path: '/iac/teams', body: () => ({ name: unique('Mass') }) }),
  patchTeam: async () => {
    const id = await create('/iac/teams', { name: unique('Mass') });
    return {
      method: 'PATCH',
      path: `/iac/teams/${id}`,
      body: () => ({ name: unique('Patched') }),
      read: () => get(`/iac/teams/${id}`),
    };
  },
  createScope: async () => ({
    method: 'POST',
    path: '/iac/scopes',
    body: () => ({ name: unique('Mass'), filters: { provider: ['AWS'] } }),
  }),
  patchScope: async () => {
    const id = await create('/iac/scopes', { name: unique('Mass'), filters: { provider: ['AWS'] } });
    return {
      method: 'PATCH',
      path: `/iac/scopes/${id}`,
      body: () => ({ name: unique('Patched') }),
      read: () => get(`/iac/scopes/${id}`),
    };
  },
  patchOrganization: async () => {
    // The organisation's own name sent back: the control changes nothing other suites read.
    const { name } = (await get('/organization')) as { name: string };
    return {
      method: 'PATCH',
      path: '/organization',
      body: () => ({ name }),
      read: () => get('/organization'),
    };
  },
  putUser: async () => {
    const id = `user_mass_${run}`;
    const read = async () =>
      ((await get('/iac/users?limit=100')) as { items: { id: string }[] }).items.find((u) => u.id === id) ??
      null;
    return {
      method: 'PUT',
      path: `/iac/users/${id}`,
      body: () => ({ email: `mass-${run}@example.org`, name: 'Mass' }),
      read,
    };
  },
  createMetricsDatasource: async () => ({
    method: 'POST',
    path: '/iac/metricsDatasources',
    body: () => ({ name: unique('Mass'), unit: 'orders' }),
  }),
  createApiKey: async () => ({ method: 'POST', path: '/api-keys', body: () => ({ name: unique('mass') }) }),
  createVirtualDimension: async () => ({ method: 'POST', path: '/dimensions/vdims', body: vdimBody }),
  updateVirtualDimension: async () => {
    const id = await create('/dimensions/vdims', vdimBody());
    return {
      method: 'PUT',
      path: `/dimensions/vdims/${id}`,
      body: vdimBody,
      read: () => get(`/dimensions/vdims/${id}`),
    };
  },
  createCostAlert: async () => ({
    method: 'POST',
    path: '/alerts-v2/costAlerts',
    body: () => thresholdBody({ name: unique('Mass') }),
  }),
  updateCostAlert: async () => {
    const { id, read } = await newCostAlert();
    return {
      method: 'PUT',
      path: `/alerts-v2/costAlerts/${id}`,
      body: () => thresholdBody({ name: unique('Updated') }),
      read,
    };
  },
  createBudgetAlert: async () => {
    const budgetId = await create('/budgets', budgetBody({ name: unique('Mass') }));
    return {
      method: 'POST',
      path: '/alerts-v2/budgetAlerts',
      body: () => budgetAlertBody(budgetId, { name: unique('Mass') }),
    };
  },
  updateBudgetAlert: async () => {
    const { budgetId, id } = await newBudgetAlert();
    return {
      method: 'PUT',
      path: `/alerts-v2/budgetAlerts/${id}`,
      body: () => budgetAlertBody(budgetId, { name: unique('Updated') }),
      read: () => get(`/alerts-v2/budgetAlerts/${id}`),
    };
  },
  snoozeBudgetAlert: async () => {
    const { id } = await newBudgetAlert();
    return {
      method: 'POST',
      path: `/alerts-v2/budgetAlerts/${id}/snooze`,
      body: snoozeForADay,
      read: () => get(`/alerts-v2/budgetAlerts/${id}`),
    };
  },
  createCommitmentAlert: async () => ({
    method: 'POST',
    path: '/alerts-v2/commitmentAlerts',
    body: () => commitmentAlertBody(),
  }),
  snoozeCommitmentAlert: async () => {
    const id = await create('/alerts-v2/commitmentAlerts', commitmentAlertBody());
    const read = () => readCommitmentAlert(id);
    return {
      method: 'POST',
      path: `/alerts-v2/commitmentAlerts/${id}/snooze`,
      body: snoozeForADay,
      read,
    };
  },
  updateCommitmentAlert: async () => {
    const id = await create('/alerts-v2/commitmentAlerts', commitmentAlertBody());
    const read = () => readCommitmentAlert(id);
    return {
      method: 'PUT',
      path: `/alerts-v2/commitmentAlerts/${id}`,
      body: () => commitmentAlertBody(),
      read,
    };
  },
  snoozeCostAlert: async () => {
    const { id, read } = await newCostAlert();
    return {
      method: 'POST',
      path: `/alerts-v2/costAlerts/${id}/snooze`,
      body: snoozeForADay,
      read,
    };
  },
};

/** Body routes that store no record of what they are sent (their schemas are checked above). */
const NOT_STORING: Record<string, string> = {
  previewReportWidget: 'renders a preview, stores nothing',
  syncTeam: 'the body is a member list applied to the team, never copied onto a record',
  pushMetricPoints: 'stores points built field by field from `points`',
  loadFxRates: 'stores parsed rates, not the body',
  publishDimensions: 'promotes drafts; the body names which',
  runExplorer: 'a query, stores nothing',
  importBudget: 'the CSV is parsed cell by cell into lines; no body field is copied onto the budget',
  suggestBudget: 'a forecast of what a budget would cover, stores nothing',
  sendBudgetAlertTest: 'sends a test notification, stores nothing',
  backtestCostAlert: 'evaluates a draft alert, stores nothing',
  simulateCommitment: 'simulates savings-plan levels, stores nothing',
};

it('every body route is either probed over HTTP or listed as storing nothing', () => {
  const ids = routes.filter(withBody).map((r) => r.id);
  expect(ids.filter((id) => !(id in STORING) && !(id in NOT_STORING))).toEqual([]);
  expect([...Object.keys(STORING), ...Object.keys(NOT_STORING)].filter((id) => !ids.includes(id))).toEqual(
    [],
  );
});

/** What each probe adds to the body, and how to tell it was taken. */
const PROBES: [
  string,
  () => unknown,
  (text: string, stored: Record<string, unknown> | undefined) => boolean,
][] = [
  ['organizationId', () => s().otherOrgId, (text) => text.includes(s().otherOrgId)],
  ['createdById', () => s().users.outsider, (text) => text.includes(s().users.outsider)],
  ['archivedAt', () => ARCHIVED_AT, (text) => text.includes(ARCHIVED_AT)],
  ['version', () => 999, (_t, stored) => stored?.version === 999],
  [UNKNOWN, () => 'probe', (text) => text.includes(UNKNOWN)],
];

describe('a body carrying a server-owned or unknown field is refused, or the field is not taken', () => {
  it.each(Object.keys(STORING))('%s', async (id) => {
    const c = await STORING[id]!();
    // Where the body schema has `version` (a compare-and-set), only the other fields are probed.
    const def = routes.find((r) => r.id === id) as RouteDef;
    const versionInBody = objectsOf(def.body as SchemaNode).some((o) => 'version' in (o.entries ?? {}));
    // The control: the plain body is accepted.
    const control = await api(c.method, c.path, { token: owner(), body: c.body() });
    expect({ id, status: control.status < 300 }).toEqual({ id, status: true });
    for (const [field, value, taken] of PROBES) {
      if (field === 'version' && versionInBody) continue;
      const before = c.read ? await c.read() : undefined;
      const res = await api<Record<string, unknown>>(c.method, c.path, {
        token: owner(),
        body: { ...(c.body() as object), [field]: value() },
      });
      if (res.status === 400) {
        if (c.read) expect({ id, field, stored: await c.read() }).toEqual({ id, field, stored: before });
        continue;
      }
      // Accepted: then the value is neither answered nor stored.
      expect({ id, field, status: res.status < 300 }).toEqual({ id, field, status: true });
      const stored = (c.read ? await c.read() : res.body) as Record<string, unknown> | undefined;
      const text = JSON.stringify([res.body, stored]);
      expect({ id, field, taken: taken(text, stored) }).toEqual({ id, field, taken: false });
    }
  });
});

/** Each plain object nested in a body (not the body itself), by its path of keys and indexes. */
function nestedObjects(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => nestedObjects(v, [...path, i]));
  if (typeof value !== 'object' || value === null) return [];
  const inner = Object.entries(value).flatMap(([k, v]) => nestedObjects(v, [...path, k]));
  return path.length ? [path, ...inner] : inner;
}

/** A copy of `body` with `key: value` added to the object at `path`. */
function withKeyAt(body: unknown, path: (string | number)[], key: string, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const step of path) at = at[step] as Record<string | number, unknown>;
  at[key] = value;
  return copy;
}

describe('an unknown field inside a nested object of a body is a 400 naming it, and nothing changes', () => {
  it.each(Object.keys(STORING))('%s', async (id) => {
    const c = await STORING[id]!();
    const body = c.body();
    // Free-form maps (records) of the schema take any key: they are not probed.
    const def = routes.find((r) => r.id === id) as RouteDef;
    const freeForm = new Set(recordsIn(def.body as SchemaNode));
    const schemaPath = (path: (string | number)[]) =>
      path
        .map((p) => (typeof p === 'number' ? '[]' : `.${p}`))
        .join('')
        .replace(/^\./, '')
        .replaceAll('.[]', '[]');
    const underRecord = (path: (string | number)[]) =>
      path.some((_, i) => freeForm.has(schemaPath(path.slice(0, i + 1))));
    const places = nestedObjects(body).filter((p) => !underRecord(p));
    for (const path of places) {
      const before = c.read ? await c.read() : undefined;
      const res = await api(c.method, c.path, {
        token: owner(),
        body: withKeyAt(body, path, UNKNOWN, 'probe'),
      });
      const where = `${id} ${path.join('.')}`;
      expect({ where, status: res.status }).toEqual({ where, status: 400 });
      expect({ where, named: JSON.stringify(res.body).includes(UNKNOWN) }).toEqual({ where, named: true });
      if (c.read) expect({ where, stored: await c.read() }).toEqual({ where, stored: before });
    }
  });
});

it('team SYNC: an unknown field in a member is a 400 naming it, and the membership is unchanged', async () => {
  const id = await create('/iac/teams', { name: unique('Sync') });
  const members = [{ userId: s().users.admin }];
  const control = await api('POST', `/iac/teams/${id}/SYNC`, { token: owner(), body: { members } });
  expect(control.status).toBe(200);
  const before = await get(`/iac/teams/${id}`);
  const res = await api('POST', `/iac/teams/${id}/SYNC`, {
    token: owner(),
    body: { members: [{ userId: s().users.member, [UNKNOWN]: 'probe' }] },
  });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain(UNKNOWN);
  expect(await get(`/iac/teams/${id}`)).toEqual(before);
});
