import {
  DEFAULT_EXPLORER_FORM,
  type ExplorerForm,
  explorerRequest,
  formFromUrlState,
  urlStateOfForm,
} from '../../../console/src/shape';
import {
  alertPageLink,
  budgetPageLink,
  consoleLink,
  explorerLink,
  explorerQueryString,
  parseBudgetPageQuery,
  parseExplorerQueryString,
} from '../../../shared/links';

const hashQuery = (link: string) => link.slice(link.indexOf('?') + 1);

describe('console links (shared/links.ts)', () => {
  test('one base, local and AWS alike: hash routes under the console base URL', () => {
    expect(consoleLink('http://127.0.0.1:3000/console/', 'alerts')).toBe(
      'http://127.0.0.1:3000/console/#/alerts',
    );
    expect(consoleLink('https://finops.example.com', '#/explorer')).toBe(
      'https://finops.example.com/#/explorer',
    );
    expect(alertPageLink('https://finops.example.com/', 'alrt 1/x')).toBe(
      'https://finops.example.com/#/alerts/alrt%201%2Fx',
    );
    expect(alertPageLink('https://finops.example.com/', null)).toBe('https://finops.example.com/#/alerts');
    expect(explorerLink('https://finops.example.com', {})).toBe('https://finops.example.com/#/explorer');
  });

  test('an explorer state round-trips through its query string, values with & = , and quotes intact', () => {
    const state = {
      title: 'EC2 & "spot" = 50%',
      metricId: 'net_amortized_cost',
      groupBy: ['service', 'region'],
      filters: [
        { field: 'service', operator: 'in', values: ['Amazon S3', 'A,B&C=D'] },
        { field: 'tag:team', operator: 'null', values: [] },
      ],
      startDate: '2026-11-01',
      endDate: '2026-11-20',
      aggBy: 'Day',
      chartType: 'LINE',
      compare: true,
      forecastDays: 30,
      scopeId: 'scp_1',
      queries: [
        { type: 'cost', name: 'ec2', alias: 'EC2 cost', whereClause: { combinator: 'and', rules: [] } },
      ],
    };
    const link = explorerLink('http://127.0.0.1:3000/console/', state);
    expect(link.startsWith('http://127.0.0.1:3000/console/#/explorer?')).toBe(true);
    expect(parseExplorerQueryString(hashQuery(link))).toEqual(state);
    // Explicit dates win over a preset; a preset alone is kept.
    expect(
      explorerQueryString({ datePreset: 'LAST_3_MONTHS', startDate: '2026-01-01', endDate: '2026-01-31' }),
    ).toBe('startDate=2026-01-01&endDate=2026-01-31');
    expect(parseExplorerQueryString('?datePreset=LAST_3_MONTHS')).toEqual({ datePreset: 'LAST_3_MONTHS' });
  });

  test('the saved urlState form of older alerts and malformed values still open a view', () => {
    expect(parseExplorerQueryString('groupBy=ServiceName&datePreset=TRAILING_30_DAYS')).toEqual({
      groupBy: ['ServiceName'],
      datePreset: 'TRAILING_30_DAYS',
    });
    expect(
      parseExplorerQueryString(
        'filter=notjson&filter=[1,2]&startDate=2026-13&endDate=2026-11-01&queries={"a":1}&queries=&zzz=1' +
          '&compare=yes&forecastDays=-3&forecastDays=2.5',
      ),
    ).toEqual({});
    // Reversed dates are dropped (the preset, if any, applies).
    expect(parseExplorerQueryString('startDate=2026-11-20&endDate=2026-11-01&datePreset=LAST_MONTH')).toEqual(
      {
        datePreset: 'LAST_MONTH',
      },
    );
  });

  test("the explorer's form round-trips through the URL and runs the request it shows", () => {
    const form: ExplorerForm = {
      ...DEFAULT_EXPLORER_FORM,
      groupBy: ['service', ''],
      filters: [{ field: 'provider', operator: 'in', values: ['AWS'] }],
      datePreset: '',
      startDate: '2026-10-01',
      endDate: '2026-10-31',
      aggBy: 'Day',
      chartType: 'LINE',
    };
    const back = formFromUrlState(parseExplorerQueryString(explorerQueryString(urlStateOfForm(form))));
    expect(back).toEqual(form);
    expect(explorerRequest(back)).toEqual({
      period: { startDate: '2026-10-01', endDate: '2026-10-31', aggBy: 'Day' },
      queries: [
        {
          type: 'cost',
          name: 'a',
          colorIndex: 0,
          chartType: 'LINE',
          metricId: 'cost',
          groupBy: 'service',
          whereClause: { combinator: 'and', rules: [{ field: 'provider', operator: 'in', value: ['AWS'] }] },
        },
      ],
    });
    // An empty state is the default view: the cost of the last 3 whole months by service, by month.
    expect(formFromUrlState({})).toEqual(DEFAULT_EXPLORER_FORM);
    expect(explorerQueryString(urlStateOfForm(DEFAULT_EXPLORER_FORM))).toBe(
      'metric=cost&groupBy=service&datePreset=LAST_3_MONTHS&aggBy=Month&chart=BAR',
    );
  });

  test('the comparison and the forecast round-trip too, and are asked of the API', () => {
    const form: ExplorerForm = { ...DEFAULT_EXPLORER_FORM, compare: true, forecastDays: 90 };
    const qs = explorerQueryString(urlStateOfForm(form));
    expect(qs).toContain('compare=1&forecastDays=90');
    const back = formFromUrlState(parseExplorerQueryString(qs));
    expect(back).toEqual(form);
    expect(explorerRequest(back).period).toMatchObject({
      comparisonPeriod: { enabled: true },
      forecastDays: 90,
    });
  });

  test("an alert's queries are run as they are, with its scope, the chart picked and the period given", () => {
    const queries = [
      { type: 'cost', name: 'spend', alias: 'EC2 cost', chartType: 'BAR', colorIndex: 0 },
      { type: 'formula', name: 'f', expression: 'spend * 2', chartType: 'BAR', colorIndex: 1 },
    ];
    const view = {
      queries,
      startDate: '2026-11-20',
      endDate: '2026-11-20',
      aggBy: 'Day',
      chartType: 'TABLE',
      scopeId: 'scp_9',
    } as const;
    const form = formFromUrlState(parseExplorerQueryString(explorerQueryString(view)));
    expect(explorerRequest(form)).toEqual({
      period: { startDate: '2026-11-20', endDate: '2026-11-20', aggBy: 'Day' },
      queries: queries.map((q) => ({ ...q, chartType: 'TABLE' })),
      scopeId: 'scp_9',
    });
    // What the page writes back to its address is the same view (the form's own query left out).
    expect(urlStateOfForm(form)).toEqual(view);
  });
});

describe("a budget's page link", () => {
  test('opens the budget on a month with a line marked, and reads back what it wrote', () => {
    const link = budgetPageLink('http://127.0.0.1:3000/console', 'bdg_1 2', {
      month: '2026-11',
      line: 'A&B',
    });
    expect(link).toBe('http://127.0.0.1:3000/console/#/budgets/bdg_1%202?month=2026-11&line=A%26B');
    expect(parseBudgetPageQuery(hashQuery(link))).toEqual({ month: '2026-11', line: 'A&B' });
    // The total: no line; no month: the current one.
    expect(budgetPageLink('https://finops.example.com', 'b', { month: '2026-01', line: null })).toBe(
      'https://finops.example.com/#/budgets/b?month=2026-01',
    );
    expect(budgetPageLink('https://finops.example.com', 'b')).toBe('https://finops.example.com/#/budgets/b');
    // A malformed month is dropped; an empty line is a line.
    expect(parseBudgetPageQuery('?month=2026-13&line=')).toEqual({ line: '' });
  });
});
