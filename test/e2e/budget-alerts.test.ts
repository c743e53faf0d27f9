import { budgetAlertBody } from '../fixtures/budgets/alert-body';
import { budgetBody } from '../fixtures/budgets/body';
import { expectSnoozeRoundTrip } from '../support/alert-messages';
import { api, session, stackKeys } from '../support/session';

/**
 * The budget-alert routes on the local stack (docs/budgets.md "Budget alerts"): create, list, read,
 * replace with If-Match, archive, snooze, history; the body's rules (line against the budget's
 * lines, the notification target's rules); the role rule (creator or admin change it).
 */
const s = () => session();
const { admin, member } = stackKeys;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

interface Threshold {
  id: string;
  budgetAlertId: string;
  costAlertId: null;
  value: number;
  severityLevel: string;
  metricMode: string;
  basis: string;
}
interface BudgetAlert {
  id: string;
  organizationId: string;
  createdById: string;
  budgetId: string;
  line: string | null;
  name: string;
  archivedAt: string | null;
  snoozedUntil: string | null;
  thresholds: Threshold[];
  emails: string[];
  [k: string]: unknown;
}

let totalBudget = '';
let lineBudget = '';

beforeAll(async () => {
  const total = await api<{ id: string }>('POST', '/budgets', {
    token: admin(),
    body: budgetBody({ name: `alerts total ${run}` }),
  });
  expect(total.status).toBe(201);
  totalBudget = total.body.id;
  const lines = await api<{ id: string }>('POST', '/budgets', {
    token: admin(),
    body: budgetBody({
      name: `alerts lines ${run}`,
      groupBy: 'service',
      lines: [
        { value: 'AmazonEC2', owner: 'ops@example.com', amounts: { '2026-01': 400 } },
        { value: 'AmazonS3', owner: null, amounts: { '2026-01': 50 } },
      ],
    }),
  });
  expect(lines.status).toBe(201);
  lineBudget = lines.body.id;
});

async function createOk(token: string, body: Record<string, unknown>): Promise<BudgetAlert> {
  const res = await api<BudgetAlert>('POST', '/alerts-v2/budgetAlerts', { token, body });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  expect(res.headers.get('etag')).toBe('"1"');
  return res.body;
}

describe('POST /alerts-v2/budgetAlerts', () => {
  it('answers 201 with the record; thresholds carry budgetAlertId and costAlertId null', async () => {
    const a = await createOk(admin(), budgetAlertBody(totalBudget, { name: `total ${run}` }));
    expect(a.id).toMatch(/^balrt_/);
    expect(a).toMatchObject({
      budgetId: totalBudget,
      line: null,
      name: `total ${run}`,
      organizationId: s().orgId,
      createdById: s().users.admin,
      archivedAt: null,
      snoozedUntil: null,
      notificationChannel: 'EMAIL',
      emails: ['finops@example.com'],
      slackChannelId: null,
      teamsChannelId: null,
    });
    expect(a.thresholds).toEqual([
      {
        id: expect.stringMatching(/^bthr_/),
        budgetAlertId: a.id,
        costAlertId: null,
        value: 80,
        severityLevel: 'WARNING',
        metricMode: 'PERCENTAGE_OF_BUDGET',
        basis: 'FORECASTED',
      },
      {
        id: expect.stringMatching(/^bthr_/),
        budgetAlertId: a.id,
        costAlertId: null,
        value: 100,
        severityLevel: 'CRITICAL',
        metricMode: 'PERCENTAGE_OF_BUDGET',
        basis: 'ACTUAL',
      },
    ]);
    const read = await api<BudgetAlert>('GET', `/alerts-v2/budgetAlerts/${a.id}`, { token: member() });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(a);
  });

  it('line: a value of the budget, or * for each line; anything else is a 400 naming line', async () => {
    const one = await createOk(
      admin(),
      budgetAlertBody(lineBudget, { name: `ec2 ${run}`, line: 'AmazonEC2' }),
    );
    expect(one.line).toBe('AmazonEC2');
    const each = await createOk(admin(), budgetAlertBody(lineBudget, { name: `each ${run}`, line: '*' }));
    expect(each.line).toBe('*');
    for (const [budgetId, line] of [
      [lineBudget, 'AmazonRDS'],
      [totalBudget, 'AmazonEC2'],
    ] as const) {
      const res = await api<{ error: string }>('POST', '/alerts-v2/budgetAlerts', {
        token: admin(),
        body: budgetAlertBody(budgetId, { line }),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^line: /);
    }
  });

  it('refuses an unknown budget, a bad threshold, a missing target and server-owned fields', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [budgetAlertBody('bud_nope'), /budgetId/],
      [budgetAlertBody(totalBudget, { thresholds: [] }), /thresholds/],
      [
        budgetAlertBody(totalBudget, { thresholds: [{ value: 80, metricMode: 'PERIOD_CHANGE' }] }),
        /metricMode/,
      ],
      [budgetAlertBody(totalBudget, { thresholds: [{ value: 80, basis: 'BUDGETED' }] }), /basis/],
      [budgetAlertBody(totalBudget, { emails: [] }), /emails/],
      [budgetAlertBody(totalBudget, { notificationChannel: 'SLACK' }), /slackChannelId/],
      [
        budgetAlertBody(totalBudget, {
          notificationChannel: 'TEAMS',
          teamsChannelId: 'https://169.254.169.254/latest/meta-data/',
        }),
        /teamsChannelId/,
      ],
      [budgetAlertBody(totalBudget, { id: 'balrt_x' }), /id/],
    ];
    for (const [body, field] of cases) {
      const res = await api<{ error: string }>('POST', '/alerts-v2/budgetAlerts', { token: admin(), body });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.error).toMatch(field);
    }
  });
});

describe('list, replace, archive, snooze, history', () => {
  it('PUT replaces the definition with If-Match; a stale version is a 409; a member who is not the creator gets 403', async () => {
    const a = await createOk(admin(), budgetAlertBody(totalBudget, { name: `put ${run}` }));
    const put = await api<BudgetAlert>('PUT', `/alerts-v2/budgetAlerts/${a.id}`, {
      token: admin(),
      headers: { 'If-Match': '"1"' },
      body: budgetAlertBody(totalBudget, {
        name: `put2 ${run}`,
        thresholds: [{ value: 500, metricMode: 'ABSOLUTE_SPEND', basis: 'ACTUAL' }],
      }),
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBe('"2"');
    expect(put.body.name).toBe(`put2 ${run}`);
    expect(put.body.thresholds).toEqual([
      expect.objectContaining({
        value: 500,
        metricMode: 'ABSOLUTE_SPEND',
        basis: 'ACTUAL',
        severityLevel: 'INFO',
      }),
    ]);
    const stale = await api('PUT', `/alerts-v2/budgetAlerts/${a.id}`, {
      token: admin(),
      headers: { 'If-Match': '"1"' },
      body: budgetAlertBody(totalBudget),
    });
    expect({ status: stale.status, body: stale.body }).toEqual({
      status: 409,
      body: { error: 'VERSION_CONFLICT' },
    });
    const byMember = await api('PUT', `/alerts-v2/budgetAlerts/${a.id}`, {
      token: member(),
      body: budgetAlertBody(totalBudget),
    });
    expect(byMember.status).toBe(403);
    // A member may create one, and change their own.
    const mine = await createOk(member(), budgetAlertBody(totalBudget, { name: `mine ${run}` }));
    const own = await api('PUT', `/alerts-v2/budgetAlerts/${mine.id}`, {
      token: member(),
      body: budgetAlertBody(totalBudget, { name: `mine2 ${run}` }),
    });
    expect(own.status).toBe(200);
  });

  it('DELETE archives (idempotent); the list leaves it out unless includeArchived; budgetId filters', async () => {
    const a = await createOk(admin(), budgetAlertBody(lineBudget, { name: `arch ${run}` }));
    const del = await api<BudgetAlert>('DELETE', `/alerts-v2/budgetAlerts/${a.id}`, { token: admin() });
    expect(del.status).toBe(200);
    expect(del.body.archivedAt).not.toBeNull();
    const again = await api<BudgetAlert>('DELETE', `/alerts-v2/budgetAlerts/${a.id}`, { token: admin() });
    expect(again.body.archivedAt).toBe(del.body.archivedAt);
    const listed = await api<{ items: BudgetAlert[] }>(
      'GET',
      `/alerts-v2/budgetAlerts?limit=100&budgetId=${lineBudget}`,
      { token: admin() },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i) => i.id)).not.toContain(a.id);
    expect(listed.body.items.every((i) => i.budgetId === lineBudget)).toBe(true);
    expect(listed.body.items.map((i) => i.name)).toEqual(
      expect.arrayContaining([`ec2 ${run}`, `each ${run}`]),
    );
    const all = await api<{ items: BudgetAlert[] }>(
      'GET',
      `/alerts-v2/budgetAlerts?limit=100&budgetId=${lineBudget}&includeArchived=true`,
      { token: admin() },
    );
    expect(all.body.items.map((i) => i.id)).toContain(a.id);
    const put = await api('PUT', `/alerts-v2/budgetAlerts/${a.id}`, {
      token: admin(),
      body: budgetAlertBody(lineBudget),
    });
    expect({ status: put.status, body: put.body }).toEqual({
      status: 409,
      body: { error: 'ALERT_ARCHIVED' },
    });
  });

  it('snooze sets snoozedUntil (future only), unsnooze clears it; history starts empty', async () => {
    const a = await createOk(admin(), budgetAlertBody(totalBudget, { name: `snooze ${run}` }));
    await expectSnoozeRoundTrip('budgetAlerts', admin(), a.id);
    const history = await api('GET', `/alerts-v2/budgetAlerts/${a.id}/history`, { token: admin() });
    expect({ status: history.status, body: history.body }).toEqual({
      status: 200,
      body: { items: [], nextCursor: null },
    });
    const missing = await api('GET', '/alerts-v2/budgetAlerts/balrt_missing', { token: admin() });
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 404,
      body: { error: 'Alert not found' },
    });
  });
});
