import {
  alertBody,
  alertFormOf,
  type Budget,
  type BudgetAlert,
  type BudgetStatus,
  budgetPutBody,
  emptyAlertForm,
  gridOf,
  monthChoices,
  newBudgetBody,
  nextMonth,
  staleVersionMessage,
  statusRows,
  withNextMonth,
} from '../../../console/src/budgets-shape';

/** The budget page's status table (console/src/budgets-shape.ts): figures in the budget's currency. */
describe('a budget status as table rows', () => {
  const status: BudgetStatus = {
    budgetId: 'bud_1',
    versionId: 'bver_1',
    conversion: null,
    month: '2026-11',
    currency: 'EUR',
    dataThrough: '2026-11-25',
    burn: null,
    lines: [
      {
        value: 'AmazonEC2',
        owner: 'ops@example.com',
        budget: 400,
        actual: 310.2,
        forecast: { value: 395.1, lower80: 380.4, upper80: 411 },
        delta: -4.9,
      },
      { value: 'Other', owner: null, budget: 0, actual: 12.5, forecast: null, delta: null },
    ],
    total: { budget: 400, actual: 322.7, forecast: { value: 420, lower80: 400, upper80: 440 }, delta: 20 },
  };
  const eur = (x: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(x);

  it('says each line, its forecast range and a signed delta, and the total last', () => {
    const { rows, total, month } = statusRows(status);
    expect(month).toBe('Nov 2026');
    expect(rows[0]).toEqual({
      line: 'AmazonEC2',
      owner: 'ops@example.com',
      budget: eur(400),
      actual: eur(310.2),
      forecast: eur(395.1),
      range: `${eur(380.4)} – ${eur(411)}`,
      delta: `−${eur(4.9)}`,
      over: false,
    });
    expect(rows[1]).toMatchObject({
      line: 'Other',
      owner: '',
      forecast: '–',
      range: '',
      delta: '–',
      over: false,
    });
    expect(total).toMatchObject({ line: 'Total', delta: `+${eur(20)}`, over: true });
  });
});

describe('the budget page editors (console/src/budgets-shape.ts)', () => {
  const budget: Budget = {
    id: 'bud_1',
    name: 'Cloud',
    description: 'd',
    currency: 'USD',
    metricId: 'cost',
    scopeId: null,
    whereClause: null,
    groupBy: 'service',
    startMonth: '2026-01',
    versionNumber: 4,
    organizationId: 'org_1',
    versionId: 'bver_4',
    createdById: 'user_1',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedById: 'user_1',
    updatedAt: '2026-01-02T00:00:00.000Z',
    archivedAt: null,
    lines: [
      { value: 'Compute', owner: 'ops@example.com', amounts: { '2026-01': 100, '2026-03': 120 } },
      { value: 'Storage', owner: null, amounts: { '2026-02': 40 } },
    ],
  };

  it('offers every month of the budget, and the shown month when it is none of them', () => {
    expect(monthChoices(budget, undefined)).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(monthChoices(budget, '2026-02')).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(monthChoices(budget, '2026-11')).toEqual(['2026-01', '2026-02', '2026-03', '2026-11']);
    expect(nextMonth('2026-12')).toBe('2027-01');
  });

  it('edits the grid into a PUT body that keeps every other field, an empty cell leaving its month out', () => {
    const g = withNextMonth(gridOf(budget));
    expect(g.months).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
    expect(g.rows.map((r) => r.cells)).toEqual([
      ['100', '', '120', ''],
      ['', '40', '', ''],
    ]);
    g.rows[0]!.cells[2] = '';
    g.rows[1]!.cells[3] = '1,250.5';
    // Every field of the budget's PUT body other than its lines, as the budget holds it.
    const { name, description, currency, metricId, scopeId, whereClause, groupBy, startMonth } = budget;
    const kept = { name, description, currency, metricId, scopeId, whereClause, groupBy, startMonth };
    expect(budgetPutBody(budget, g)).toEqual({
      ok: true,
      body: {
        ...kept,
        lines: [
          { value: 'Compute', owner: 'ops@example.com', amounts: { '2026-01': 100 } },
          { value: 'Storage', owner: null, amounts: { '2026-02': 40, '2026-04': 1250.5 } },
        ],
      },
    });
    g.rows[1]!.cells[1] = 'ten';
    expect(budgetPutBody(budget, g)).toEqual({
      ok: false,
      message: 'Storage, Feb 2026: "ten" is not an amount',
    });
    const empty = gridOf(budget);
    empty.rows[1]!.cells[1] = '';
    expect(budgetPutBody(budget, empty)).toEqual({
      ok: false,
      message: 'Storage: give at least one month an amount',
    });
    expect(staleVersionMessage(4)).toContain('you edited version 4');
  });

  it("turns the alert form into the API's body, and an alert back into the form", () => {
    const form = {
      ...emptyAlertForm(),
      name: ' Each line ',
      line: '*',
      emails: 'a@example.com, b@example.com',
    };
    const made = alertBody(form, 'bud_1');
    expect(made).toEqual({
      ok: true,
      body: {
        name: 'Each line',
        budgetId: 'bud_1',
        line: '*',
        thresholds: [
          { value: 100, severityLevel: 'WARNING', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' },
        ],
        notificationChannel: 'EMAIL',
        emails: ['a@example.com', 'b@example.com'],
      },
    });
    expect(
      alertBody({ ...form, line: '', notificationChannel: 'SLACK', slackChannelId: ' C1 ' }, 'bud_1'),
    ).toMatchObject({ ok: true, body: { line: null, slackChannelId: 'C1' } });
    expect(alertBody({ ...form, thresholds: [{ ...form.thresholds[0]!, value: 'x' }] }, 'bud_1')).toEqual({
      ok: false,
      message: 'Threshold 1: "x" is not a number',
    });
    expect(alertBody({ ...form, name: ' ' }, 'bud_1')).toEqual({
      ok: false,
      message: 'Name: give the alert a name',
    });
    const alert = {
      id: 'balrt_1',
      organizationId: 'org_1',
      name: 'Each line',
      budgetId: 'bud_1',
      line: '*',
      thresholds: [
        {
          id: 'bthr_1',
          budgetAlertId: 'balrt_1',
          costAlertId: null,
          value: 80,
          severityLevel: 'CRITICAL',
          metricMode: 'ABSOLUTE_SPEND',
          basis: 'FORECASTED',
        },
      ],
      notificationChannel: 'EMAIL',
      emails: ['a@example.com', 'b@example.com'],
      slackChannelId: null,
      teamsChannelId: null,
    } as unknown as BudgetAlert;
    expect(alertFormOf(alert)).toEqual({
      name: 'Each line',
      line: '*',
      thresholds: [
        { value: '80', severityLevel: 'CRITICAL', metricMode: 'ABSOLUTE_SPEND', basis: 'FORECASTED' },
      ],
      notificationChannel: 'EMAIL',
      emails: 'a@example.com, b@example.com',
      slackChannelId: '',
      teamsChannelId: '',
    });
  });
});

describe('a new budget from the form', () => {
  const form = {
    name: ' Cloud ',
    currency: 'EUR',
    groupBy: '',
    startMonth: '2026-11',
    months: 3,
    owner: 'ops@example.com',
    monthly: '2500',
  };
  it('a total budget: one line of the monthly amount for each month, from the first month on', () => {
    expect(newBudgetBody(form, null)).toEqual({
      ok: true,
      body: {
        name: 'Cloud',
        currency: 'EUR',
        groupBy: null,
        startMonth: '2026-11',
        lines: [
          {
            value: null,
            owner: 'ops@example.com',
            amounts: { '2026-11': 2500, '2026-12': 2500, '2027-01': 2500 },
          },
        ],
      },
    });
  });
  it('with a suggestion: its lines, each month rounded up to a whole unit', () => {
    const suggestion = {
      currency: 'EUR',
      groupBy: 'service',
      dataThrough: '2026-11-26',
      months: ['2026-12'],
      lines: [
        { value: 'EC2', amounts: { '2026-12': { value: 3120.01, lower80: 2890, upper80: 3350 } } },
        { value: 'S3', amounts: { '2026-12': { value: 40, lower80: 38, upper80: 42 } } },
      ],
    };
    const made = newBudgetBody({ ...form, groupBy: 'service', owner: '' }, suggestion);
    expect(made.ok && made.body.lines).toEqual([
      { value: 'EC2', owner: null, amounts: { '2026-12': 3121 } },
      { value: 'S3', owner: null, amounts: { '2026-12': 40 } },
    ]);
  });
  it('says what is missing instead of sending it', () => {
    expect(newBudgetBody({ ...form, name: ' ' }, null)).toEqual({
      ok: false,
      message: 'Give the budget a name.',
    });
    expect(newBudgetBody({ ...form, monthly: 'x' }, null)).toMatchObject({ ok: false });
    expect(newBudgetBody({ ...form, groupBy: 'service' }, null)).toMatchObject({ ok: false });
    expect(newBudgetBody({ ...form, startMonth: '2026-13' }, null)).toMatchObject({ ok: false });
  });
});
