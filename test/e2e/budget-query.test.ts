import { type CsvRow, close, num } from '../integration/warehouse/support';
import { ingestAwsFocus } from '../support/daily-focus';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';
import { DAY_MS, monthStart, suiteIds, ymd } from '../support/suite';

/**
 * The `budget` query type (issue 28) on the local stack, for a new organisation whose billing rows
 * are generated here: the explorer's and a widget's budget series equal the budget's amounts spread
 * evenly over each month's days (computed here), converted at each day's rate when the budget's
 * currency is not the answer's; `rollingSum(cost, 1, MONTH)` against `rollingSum(budget, 1, MONTH)`
 * and their ratio are the budget-vs-actual figures computed from the raw rows; a cost alert's
 * `cost > budget` fires on exactly the days the rows say; another organisation's budget answers like
 * an unknown one.
 */
const { run, orgId, userId } = suiteIds('bq');
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);

let token = '';
let rows: CsvRow[] = [];
let usdPerEur = new Map<string, number>();
let service = '';

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const now = new Date();
const months = [4, 3, 2, 1, 0].map((o) => monthStart(now, o).slice(0, 7));
const lastMonth = months[3]!;
const daysIn = (month: string) => {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y!, m!, 0)).getUTCDate();
};
const lastDay = (month: string) => `${month}-${String(daysIn(month)).padStart(2, '0')}`;
const daysOf = (month: string) =>
  Array.from({ length: daysIn(month) }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`);

/** Cost of the chosen service on a day, in USD, from the raw rows. */
const costOn = (d: string) =>
  rows.filter((r) => day(r) === d && r.ServiceName === service).reduce((a, r) => a + num(r.BilledCost), 0);

/** The line's amounts: each month near its actual cost, so some days are over and some under. */
const amounts: Record<string, number> = {};
/** The other line's amounts (the total of the budget adds them). */
const otherAmounts: Record<string, number> = {};

function expectClose(actual: number | null | undefined, expected: number, what = '') {
  const a = actual ?? Number.NaN;
  if (!close(a, expected, 1e-9)) throw new Error(`${what}: got ${actual}, expected ${expected}`);
}

interface Point {
  date: string;
  value: number | null;
}
interface QueryOut {
  name: string;
  type: string;
  unit: string | null;
  currency: string | null;
  conversion?: { from: string[]; to: string; source: string | null; rates: { from: string; to: string } };
  series: { group: Record<string, string | null>; points: Point[]; total: number | null }[];
  total: number | null;
}
interface Answer {
  queries: QueryOut[];
  currency: string | null;
  conversion: { from: string[]; to: string; source: string | null } | null;
}

let seq = 0;
const q = (type: string, extra: Record<string, unknown>) => ({
  type,
  name: `q${++seq}`,
  colorIndex: 0,
  chartType: 'LINE',
  ...extra,
});
const costOfService = (name: string) => ({
  type: 'cost',
  name,
  colorIndex: 0,
  chartType: 'LINE',
  whereClause: { combinator: 'and', rules: [{ field: 'ServiceName', operator: 'in', value: [service] }] },
});

async function explorer(body: Record<string, unknown>, as = token) {
  return api<Answer & { error?: string }>('POST', '/queries/explorer', { token: as, body });
}
async function explorerOk(body: Record<string, unknown>): Promise<Answer> {
  const res = await explorer(body);
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.anything() });
  return res.body;
}
async function createBudget(body: Record<string, unknown>, as = token): Promise<string> {
  const res = await api<{ id: string }>('POST', '/budgets', { token: as, body });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return res.body.id;
}

let usdBudget = '';
let eurBudget = '';

beforeAll(async () => {
  usdPerEur = seedUsdPerEur();
  token = await freshOrg(orgId, userId, `budget query ${run}`);
  rows = ingestAwsFocus(
    orgId,
    { seed: 2828, months, resourcesPerProvider: 3, accountPrefix: `bq${run}` },
    'focus_budget_query.csv',
    now,
  );
  expect(new Set(rows.map((r) => r.BillingCurrency))).toEqual(new Set(['USD']));
  service = [...new Set(rows.map((r) => String(r.ServiceName)))].sort()[0]!;
  for (const m of months) {
    const full = daysOf(m).reduce((a, d) => a + costOn(d), 0);
    // Near the month's cost, in cents: some days above the daily budget, some below.
    amounts[m] = Math.round(Math.max(full, 100) * 97) / 100;
    otherAmounts[m] = 123.45;
  }
  usdBudget = await createBudget({
    name: `Query USD ${run}`,
    currency: 'USD',
    groupBy: 'service',
    startMonth: months[0],
    lines: [
      { value: service, owner: 'ops@example.com', amounts },
      { value: 'NoSuchService', owner: null, amounts: otherAmounts },
    ],
  });
  eurBudget = await createBudget({
    name: `Query EUR ${run}`,
    currency: 'EUR',
    startMonth: months[0],
    lines: [{ value: null, owner: null, amounts: { [lastMonth]: 3100 } }],
  });
}, 600_000);

jest.setTimeout(300_000);

const lastMonthDays = { startDate: `${lastMonth}-01`, endDate: lastDay(lastMonth) };

describe('POST /queries/explorer with a budget query', () => {
  it("a line's daily series is its month's amount over the month's days; a Month bucket is the amount exactly", async () => {
    const line = q('budget', { budgetId: usdBudget, line: service });
    const total = q('budget', { budgetId: usdBudget });
    const daily = await explorerOk({
      currency: 'USD',
      request: { period: { ...lastMonthDays, aggBy: 'Day' }, queries: [line, total] },
    });
    const [a, b] = daily.queries;
    expect(a).toMatchObject({ type: 'budget', unit: 'USD', currency: 'USD' });
    expect(a!.series).toHaveLength(1);
    expect(a!.series[0]!.group).toEqual({});
    const n = daysIn(lastMonth);
    expect(a!.series[0]!.points.map((p) => p.date)).toEqual(daysOf(lastMonth));
    for (const p of a!.series[0]!.points) expectClose(p.value, amounts[lastMonth]! / n, p.date);
    for (const p of b!.series[0]!.points)
      expectClose(p.value, (amounts[lastMonth]! + otherAmounts[lastMonth]!) / n, p.date);
    expectClose(a!.total, amounts[lastMonth]!, 'total');
    const monthly = await explorerOk({
      request: {
        period: { startDate: `${months[1]}-01`, endDate: lastDay(lastMonth), aggBy: 'Month' },
        queries: [line],
      },
    });
    expect(monthly.queries[0]!.series[0]!.points).toEqual([
      { date: `${months[1]}-01`, value: amounts[months[1]!] },
      { date: `${months[2]}-01`, value: amounts[months[2]!] },
      { date: `${lastMonth}-01`, value: amounts[lastMonth] },
    ]);
    // Nothing converted: the budget and the billing data are both in USD.
    expect(monthly.conversion).toBeNull();
  });

  it('rollingSum(cost, 1, MONTH) against rollingSum(budget, 1, MONTH) and their ratio: budget vs actual from the rows', async () => {
    const answer = await explorerOk({
      currency: 'USD',
      request: {
        period: { ...lastMonthDays, aggBy: 'Day' },
        queries: [
          costOfService('cost'),
          q('budget', { name: 'budget', budgetId: usdBudget, line: service }),
          q('formula', { name: 'actualMtd', formula: 'rollingSum(cost, 1, MONTH)' }),
          q('formula', { name: 'budgetMtd', formula: 'rollingSum(budget, 1, MONTH)' }),
          q('formula', { name: 'utilisation', formula: 'actualMtd / budgetMtd' }),
        ],
      },
    });
    const byName = (name: string) => answer.queries.find((x) => x.name === name)!.series[0]!.points;
    const n = daysIn(lastMonth);
    // On the month's last day the window (d − 1 month, d] is the whole month.
    const end = lastDay(lastMonth);
    const actual = daysOf(lastMonth).reduce((a, d) => a + costOn(d), 0);
    expect(actual).toBeGreaterThan(0);
    expectClose(byName('actualMtd').find((p) => p.date === end)!.value, actual, 'actual');
    expectClose(byName('budgetMtd').find((p) => p.date === end)!.value, amounts[lastMonth]!, 'budget');
    expectClose(
      byName('utilisation').find((p) => p.date === end)!.value,
      actual / amounts[lastMonth]!,
      'utilisation',
    );
    // Mid-month the window reaches into the month before: its days at that month's daily amount.
    const mid = `${lastMonth}-15`;
    const prev = months[2]!;
    const start = new Date(dayMs(mid));
    start.setUTCMonth(start.getUTCMonth() - 1);
    let budgetWindow = 0;
    let costWindow = 0;
    for (let t = start.getTime() + DAY_MS; t <= dayMs(mid); t += DAY_MS) {
      const d = ymd(t);
      budgetWindow += d.startsWith(prev) ? amounts[prev]! / daysIn(prev) : amounts[lastMonth]! / n;
      costWindow += costOn(d);
    }
    expectClose(byName('budgetMtd').find((p) => p.date === mid)!.value, budgetWindow, 'mid budget');
    expectClose(byName('actualMtd').find((p) => p.date === mid)!.value, costWindow, 'mid actual');
  });

  it("a EUR budget asked in USD: each day's share at that day's rate, and the answer says so", async () => {
    const answer = await explorerOk({
      currency: 'USD',
      request: {
        period: { ...lastMonthDays, aggBy: 'Day' },
        queries: [q('budget', { budgetId: eurBudget })],
      },
    });
    const out = answer.queries[0]!;
    expect(out).toMatchObject({ unit: 'USD', currency: 'USD' });
    expect(out.conversion).toMatchObject({ from: ['EUR'], to: 'USD', source: expect.any(String) });
    expect(answer.conversion).toMatchObject({ from: ['EUR'], to: 'USD' });
    const n = daysIn(lastMonth);
    let sum = 0;
    for (const p of out.series[0]!.points) {
      const expected = (3100 / n) * rateOn(usdPerEur, p.date);
      expectClose(p.value, expected, p.date);
      sum += expected;
    }
    expectClose(out.total, sum, 'total');
    // Neither 1:1 nor one rate for the month.
    expect(Math.abs(sum - 3100)).toBeGreaterThan(1);
    expect(Math.abs(sum - 3100 * rateOn(usdPerEur, `${lastMonth}-15`))).toBeGreaterThan(1e-6);
    // Asked in EUR: the amounts as planned, nothing converted.
    const own = await explorerOk({
      currency: 'EUR',
      request: {
        period: { ...lastMonthDays, aggBy: 'Period' },
        queries: [q('budget', { budgetId: eurBudget })],
      },
    });
    expectClose(own.queries[0]!.total, 3100, 'EUR total');
    expect(own.queries[0]!.conversion).toBeUndefined();
  });

  it("another organisation's budget answers exactly like an unknown one; a bad line or field is a 400", async () => {
    const foreign = await createBudget(
      {
        name: `Foreign ${run}`,
        currency: 'USD',
        startMonth: months[0],
        lines: [{ value: null, owner: null, amounts: { [lastMonth]: 10 } }],
      },
      session().apiKeys.admin,
    );
    const ask = (budgetId: string, extra: Record<string, unknown> = {}) =>
      explorer({
        request: {
          period: { ...lastMonthDays, aggBy: 'Day' },
          queries: [{ type: 'budget', name: 'b', budgetId, ...extra }],
        },
      });
    const theirs = await ask(foreign);
    const unknown = await ask('bud_doesnotexist');
    expect({ status: theirs.status, body: theirs.body }).toEqual({
      status: 400,
      body: { error: `query b: budgetId: unknown budget ${foreign}` },
    });
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 400,
      body: { error: 'query b: budgetId: unknown budget bud_doesnotexist' },
    });
    // The owner sees it.
    const own = await explorer(
      {
        request: {
          period: { ...lastMonthDays, aggBy: 'Period' },
          queries: [{ type: 'budget', name: 'b', budgetId: foreign }],
        },
      },
      session().apiKeys.admin,
    );
    expect(own.status).toBe(200);
    expect(own.body.queries[0]!.total).toBeCloseTo(10, 9);
    const badLine = await ask(usdBudget, { line: 'Nope' });
    expect({ status: badLine.status, body: badLine.body }).toEqual({
      status: 400,
      body: { error: `query b: line: budget ${usdBudget} has no line Nope` },
    });
    const extra = await ask(usdBudget, { groupBy: 'service' });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatch(/request\.queries\.0\.groupBy/);
    const noId = await explorer({
      request: { period: { ...lastMonthDays, aggBy: 'Day' }, queries: [{ type: 'budget', name: 'b' }] },
    });
    expect(noId.status).toBe(400);
    expect(noId.body.error).toMatch(/budgetId/);
  });
});

describe('a budget query in a widget and in a cost alert', () => {
  it("widget data: the dashboard's period and currency, budget vs actual figures from the rows", async () => {
    const created = await api<{ id: string }>('POST', '/dashboard-v2', {
      token,
      body: {
        name: `Budget vs actual ${run}`,
        startDate: `${lastMonth}-01`,
        endDate: lastDay(lastMonth),
        currency: 'USD',
        widgets: [
          {
            key: 'bva',
            x: 0,
            y: 0,
            w: 6,
            h: 4,
            title: 'Budget vs actual',
            source: {
              type: 'advancedExplorer',
              request: {
                period: { aggBy: 'Month' },
                queries: [
                  costOfService('cost'),
                  q('budget', { name: 'budget', budgetId: usdBudget, line: service }),
                  q('formula', { name: 'utilisation', formula: 'cost / budget' }),
                ],
              },
            },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const badLine = await api<{ error: string }>('POST', '/dashboard-v2', {
      token,
      body: {
        name: `Bad line ${run}`,
        widgets: [
          {
            key: 'k',
            x: 0,
            y: 0,
            w: 6,
            h: 4,
            title: 't',
            source: {
              type: 'advancedExplorer',
              request: {
                period: { aggBy: 'Day' },
                queries: [q('budget', { name: 'b', budgetId: usdBudget, line: 'Nope' })],
              },
            },
          },
        ],
      },
    });
    expect({ status: badLine.status, error: badLine.body.error }).toEqual({
      status: 400,
      error: `Invalid body: widgets.0.source.request.queries.0.line: widget "k", query "b": budget ${usdBudget} has no line Nope`,
    });
    const res = await api<Answer>('GET', `/dashboard-v2/${created.body.id}/widgets/bva/data`, { token });
    expect(res.status).toBe(200);
    const byName = (name: string) => res.body.queries.find((x) => x.name === name)!;
    const actual = daysOf(lastMonth).reduce((a, d) => a + costOn(d), 0);
    expectClose(byName('cost').total, actual, 'cost');
    expect(byName('budget').series[0]!.points).toEqual([
      { date: `${lastMonth}-01`, value: amounts[lastMonth] },
    ]);
    expectClose(byName('utilisation').total, actual / amounts[lastMonth]!, 'utilisation');
  });

  it('a report GRAPH_SNAPSHOT draws a budget query next to the cost it plans', async () => {
    const res = await api<{
      currency: string | null;
      chart: { series: { name: string; total: number | null; points: Point[] }[] };
    }>('POST', '/reports/preview-widget', {
      token,
      body: {
        context: { datePreset: 'LAST_MONTH', currency: 'USD' },
        widget: {
          type: 'GRAPH_SNAPSHOT',
          aggBy: 'Day',
          queries: [
            {
              type: 'cost',
              name: 'cost',
              alias: 'Actual',
              whereClause: costOfService('cost').whereClause,
            },
            { type: 'budget', name: 'budget', alias: 'Plan', budgetId: usdBudget, line: service },
          ],
        },
      },
    });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.anything() });
    const names = res.body.chart.series.map((x) => x.name);
    const plan = res.body.chart.series.find((x) => x.name === 'Plan');
    const actualSeries = res.body.chart.series.find((x) => x.name === 'Actual');
    if (!plan || !actualSeries) throw new Error(`series ${JSON.stringify(names)}`);
    expectClose(plan.total, amounts[lastMonth]!, 'plan');
    expectClose(
      actualSeries.total,
      daysOf(lastMonth).reduce((a, d) => a + costOn(d), 0),
      'actual',
    );
    const bad = await api<{ error: string }>('POST', '/reports/preview-widget', {
      token,
      body: {
        context: { datePreset: 'LAST_MONTH', currency: 'USD' },
        widget: { type: 'DIGEST', queries: [{ type: 'budget', name: 'b', budgetId: usdBudget }] },
      },
    });
    expect(bad.status).toBe(400);
  });

  it('a report saved with a budget query: a line the budget lacks or an unknown budget is a 400 naming the field', async () => {
    const widget = (budget: Record<string, unknown>) => ({
      type: 'GRAPH_SNAPSHOT',
      aggBy: 'Day',
      queries: [
        { type: 'cost', name: 'cost', alias: 'Actual' },
        { type: 'budget', name: 'plan', alias: 'Plan', ...budget },
      ],
    });
    const save = (budget: Record<string, unknown>) =>
      api<{ id: string; version: number; error?: string; reason?: string; details?: unknown }>(
        'POST',
        '/reports',
        {
          token,
          body: {
            name: `Budget report ${run}`,
            widgets: [{ type: 'TEXT', contentMarkdown: 'x' }, widget(budget)],
          },
        },
      );
    const badLine = await save({ budgetId: usdBudget, line: 'Nope' });
    const message = `query "plan": budget ${usdBudget} has no line Nope`;
    expect({ status: badLine.status, body: badLine.body }).toEqual({
      status: 400,
      body: {
        error: 'VALIDATION_ERROR',
        reason: `widgets.1.queries.1.line: ${message}`,
        details: [{ path: 'widgets.1.queries.1.line', message }],
      },
    });
    const unknown = await save({ budgetId: 'bud_doesnotexist' });
    expect({ status: unknown.status, details: unknown.body.details }).toEqual({
      status: 400,
      details: [
        { path: 'widgets.1.queries.1.budgetId', message: 'query "plan": unknown budget bud_doesnotexist' },
      ],
    });
    // A line the budget has, and the budget's total (no line), save; a PATCH to a missing line does not.
    const ok = await save({ budgetId: usdBudget, line: service });
    expect(ok.status).toBe(201);
    expect((await save({ budgetId: usdBudget })).status).toBe(201);
    const patched = await api<{ details?: unknown }>('PATCH', `/reports/${ok.body.id}`, {
      token,
      body: { widgets: [widget({ budgetId: usdBudget, line: 'Gone' })] },
    });
    expect({ status: patched.status, details: patched.body.details }).toEqual({
      status: 400,
      details: [
        {
          path: 'widgets.0.queries.1.line',
          message: `query "plan": budget ${usdBudget} has no line Gone`,
        },
      ],
    });
  });

  it('a cost alert `cost > budget` fires on exactly the days whose cost exceeds the day’s budget', async () => {
    const body = {
      name: `Over budget ${run}`,
      currency: 'USD',
      urlState: 'datePreset=TRAILING_30_DAYS',
      queries: [costOfService('cost'), q('budget', { name: 'budget', budgetId: usdBudget, line: service })],
      condition: 'cost > budget',
      dedup: { kind: 'ROLLING' },
      dedupWindowDays: 1,
      thresholds: [],
      notificationChannel: 'EMAIL',
      emails: ['ops@example.com'],
    };
    const res = await api<{
      dataThrough: string;
      from: string;
      days: number;
      fired: { day: string; values: Record<string, number | null> }[];
    }>('POST', '/alerts-v2/costAlerts/backtest', { token, body });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.anything() });
    const days = Array.from({ length: res.body.days }, (_, i) => ymd(dayMs(res.body.from) + i * DAY_MS));
    const budgetOn = (d: string) => amounts[d.slice(0, 7)]! / daysIn(d.slice(0, 7));
    const expected = days.filter((d) => costOn(d) > budgetOn(d));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(days.length);
    expect(res.body.fired.map((f) => f.day)).toEqual(expected);
    for (const f of res.body.fired) {
      expectClose(f.values.cost, costOn(f.day), `cost ${f.day}`);
      expectClose(f.values.budget, budgetOn(f.day), `budget ${f.day}`);
    }
    // Saved: the same body is a valid alert; an unknown budget or line is refused when saved.
    const saved = await api<{ id: string }>('POST', '/alerts-v2/costAlerts', { token, body });
    expect(saved.status).toBe(201);
    const unknown = await api<{ error: string }>('POST', '/alerts-v2/costAlerts', {
      token,
      body: { ...body, queries: [body.queries[0], { ...body.queries[1], budgetId: 'bud_nope' }] },
    });
    expect({ status: unknown.status, error: unknown.body.error }).toEqual({
      status: 400,
      error: 'Invalid body: queries.1.budgetId: query "budget": unknown budget bud_nope',
    });
  });
});
