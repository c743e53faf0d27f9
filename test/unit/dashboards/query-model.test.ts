import * as v from 'valibot';
import {
  ConditionQuerySchema,
  duplicateQueryNames,
  PeriodSchema,
  QueriesSchema,
  QuerySchema,
  WhereClauseSchema,
} from '../../../shared/model/query-model';
import { toFieldIssues } from '../../../shared/validation';

const parse = (schema: v.GenericSchema, input: unknown) =>
  v.safeParse(schema, input, { abortPipeEarly: true });
const firstIssue = (schema: v.GenericSchema, input: unknown) => {
  const r = parse(schema, input);
  if (r.success) throw new Error(`expected a failure for ${JSON.stringify(input)}`);
  return toFieldIssues(r.issues)[0]!;
};

const cost = (extra: Record<string, unknown> = {}) => ({
  type: 'cost',
  name: 'a',
  colorIndex: 0,
  chartType: 'BAR',
  ...extra,
});
const metric = (extra: Record<string, unknown> = {}) => ({
  type: 'metric',
  name: 'm',
  colorIndex: 1,
  chartType: 'LINE',
  metricId: 'requests',
  aggregator: 'SUM',
  ...extra,
});
const formula = (extra: Record<string, unknown> = {}) => ({
  type: 'formula',
  name: 'f',
  colorIndex: 2,
  chartType: 'LINE',
  formula: 'a / m',
  ...extra,
});

describe('query model: the Limits table', () => {
  // Each rule of the spec's Limits table that applies to dashboard queries, at and past its edge.
  const cases: { rule: string; schema: v.GenericSchema; ok: unknown[]; bad: unknown[]; path: string }[] = [
    {
      rule: 'alias length 1 to 50',
      schema: QuerySchema,
      ok: [cost({ alias: 'a' }), cost({ alias: 'x'.repeat(50) })],
      bad: [cost({ alias: '' }), cost({ alias: 'x'.repeat(51) })],
      path: 'alias',
    },
    {
      rule: 'name pattern ^[A-Za-z_][A-Za-z0-9_]*$',
      schema: QuerySchema,
      ok: [cost({ name: 'a' }), cost({ name: '_a1' }), cost({ name: 'Cost_By_Service2' })],
      bad: [
        cost({ name: '' }),
        cost({ name: '1a' }),
        cost({ name: 'a-b' }),
        cost({ name: 'a b' }),
        cost({ name: 'é' }),
      ],
      path: 'name',
    },
    {
      rule: 'condition expression min length 1',
      schema: QuerySchema,
      ok: [{ type: 'condition', name: 'c', colorIndex: 0, chartType: 'BAR', expression: 'a' }],
      bad: [{ type: 'condition', name: 'c', colorIndex: 0, chartType: 'BAR', expression: '' }],
      path: 'expression',
    },
    {
      rule: 'rollingAggregation.window.relativeDays min 1 (metric)',
      schema: QuerySchema,
      ok: [metric({ rollingAggregation: { aggregator: 'SUM', window: { relativeDays: 1 } } })],
      bad: [
        metric({ rollingAggregation: { aggregator: 'SUM', window: { relativeDays: 0 } } }),
        metric({ rollingAggregation: { aggregator: 'SUM', window: { relativeDays: 1.5 } } }),
      ],
      path: 'rollingAggregation.window.relativeDays',
    },
    {
      rule: 'rollingAggregation.window.relativeDays min 1 (formula)',
      schema: QuerySchema,
      ok: [
        formula({ rollingAggregation: { aggregator: 'AVG', window: { relativeDays: 1, preset: 'WEEK' } } }),
      ],
      bad: [formula({ rollingAggregation: { aggregator: 'AVG', window: { relativeDays: -3 } } })],
      path: 'rollingAggregation.window.relativeDays',
    },
    {
      rule: 'period.forecastDays min 0',
      schema: PeriodSchema,
      ok: [
        { aggBy: 'Day', forecastDays: 0 },
        { aggBy: 'Month', forecastDays: 90 },
      ],
      bad: [
        { aggBy: 'Day', forecastDays: -1 },
        { aggBy: 'Day', forecastDays: 0.5 },
      ],
      path: 'forecastDays',
    },
  ];

  it.each(cases)('$rule', ({ schema, ok, bad, path }) => {
    for (const input of ok) expect(parse(schema, input).success).toBe(true);
    for (const input of bad) expect(firstIssue(schema, input).path).toBe(path);
  });
});

describe('query model: kinds, defaults and shapes', () => {
  it('fills the defaults the spec names: visible, colorPalette, extendDashboardConditions', () => {
    expect(v.parse(QuerySchema, cost())).toEqual({
      ...cost(),
      visible: true,
      colorPalette: 'DEFAULT',
      extendDashboardConditions: true,
    });
    expect(v.parse(QuerySchema, metric())).toEqual({ ...metric(), visible: true, colorPalette: 'DEFAULT' });
    // formula and condition queries carry no colorPalette in the spec, so none is added.
    expect(v.parse(QuerySchema, formula())).toEqual({ ...formula(), visible: true });
    expect(v.parse(QuerySchema, cost({ visible: false, extendDashboardConditions: false }))).toMatchObject({
      visible: false,
      extendDashboardConditions: false,
    });
  });

  it('requires metricId and aggregator on metric, formula on formula, expression on condition', () => {
    const { metricId: _m, ...noMetricId } = metric();
    expect(firstIssue(QuerySchema, noMetricId)).toEqual({ path: 'metricId', message: expect.any(String) });
    const { aggregator: _a, ...noAggregator } = metric();
    expect(firstIssue(QuerySchema, noAggregator).path).toBe('aggregator');
    const { formula: _f, ...noFormula } = formula();
    expect(firstIssue(QuerySchema, noFormula).path).toBe('formula');
    expect(
      firstIssue(ConditionQuerySchema, { type: 'condition', name: 'c', colorIndex: 0, chartType: 'BAR' })
        .path,
    ).toBe('expression');
  });

  it('requires the common fields name, colorIndex and chartType on every kind', () => {
    for (const field of ['name', 'colorIndex', 'chartType']) {
      const q: Record<string, unknown> = cost();
      delete q[field];
      expect(firstIssue(QuerySchema, q).path).toBe(field);
    }
    expect(firstIssue(QuerySchema, cost({ chartType: 'PIE' })).path).toBe('chartType');
  });

  it('discriminates by type and refuses an unknown kind', () => {
    expect(firstIssue(QuerySchema, cost({ type: 'sql' }))).toEqual({
      path: 'type',
      message: 'type must be one of cost, metric, formula, condition, budget',
    });
  });

  it('refuses fields a kind does not have (strict objects)', () => {
    expect(firstIssue(QuerySchema, formula({ whereClause: { combinator: 'and', rules: [] } })).path).toBe(
      'whereClause',
    );
    expect(firstIssue(QuerySchema, cost({ metricId: 'requests' })).path).toBe('metricId');
    expect(firstIssue(QuerySchema, { ...cost(), expression: 'x' }).path).toBe('expression');
  });

  it('accepts groupBy as a string, an array of non-empty strings, or null', () => {
    for (const groupBy of ['ServiceName', ['ServiceName', 'RegionId'], null]) {
      expect(parse(QuerySchema, cost({ groupBy })).success).toBe(true);
    }
    expect(firstIssue(QuerySchema, cost({ groupBy: ['ok', ''] })).path).toBe('groupBy.1');
    expect(firstIssue(QuerySchema, cost({ groupBy: 3 })).path).toBe('groupBy');
  });

  it('takes SUM, AVG, MAX, MIN as aggregator and reducer; DEFAULT, PIYG, RDYLBU, CLASSIC as palette', () => {
    for (const agg of ['SUM', 'AVG', 'MAX', 'MIN']) {
      expect(parse(QuerySchema, cost({ aggregator: agg, reducer: agg })).success).toBe(true);
    }
    expect(firstIssue(QuerySchema, cost({ reducer: 'MEDIAN' })).path).toBe('reducer');
    for (const palette of ['DEFAULT', 'PIYG', 'RDYLBU', 'CLASSIC']) {
      expect(parse(QuerySchema, metric({ colorPalette: palette })).success).toBe(true);
    }
    expect(firstIssue(QuerySchema, metric({ colorPalette: 'VIRIDIS' })).path).toBe('colorPalette');
  });

  it('checks the cost metricId and currency enums', () => {
    expect(parse(QuerySchema, cost({ metricId: 'net_amortized_cost', currency: 'KRW' })).success).toBe(true);
    expect(firstIssue(QuerySchema, cost({ metricId: 'blended_cost' })).path).toBe('metricId');
    expect(firstIssue(QuerySchema, cost({ currency: 'JPY' })).path).toBe('currency');
  });

  it('requires rollingAggregation.aggregator and a window with a preset or relativeDays', () => {
    expect(
      parse(QuerySchema, metric({ rollingAggregation: { aggregator: 'MAX', window: { preset: 'MONTH' } } }))
        .success,
    ).toBe(true);
    expect(firstIssue(QuerySchema, metric({ rollingAggregation: { window: { preset: 'WEEK' } } })).path).toBe(
      'rollingAggregation.aggregator',
    );
    expect(firstIssue(QuerySchema, metric({ rollingAggregation: { aggregator: 'SUM' } })).path).toBe(
      'rollingAggregation.window',
    );
    expect(
      firstIssue(QuerySchema, metric({ rollingAggregation: { aggregator: 'SUM', window: {} } })).path,
    ).toBe('rollingAggregation.window');
    expect(
      firstIssue(
        QuerySchema,
        metric({ rollingAggregation: { aggregator: 'SUM', window: { preset: 'DAY' } } }),
      ).path,
    ).toBe('rollingAggregation.window.preset');
  });

  it('takes an integer shiftAmount with a DAY, WEEK or MONTH shiftUnit, both or neither', () => {
    expect(parse(QuerySchema, formula({ shiftAmount: -7, shiftUnit: 'DAY' })).success).toBe(true);
    expect(firstIssue(QuerySchema, formula({ shiftAmount: 1.5, shiftUnit: 'DAY' })).path).toBe('shiftAmount');
    expect(firstIssue(QuerySchema, formula({ shiftAmount: 1, shiftUnit: 'YEAR' })).path).toBe('shiftUnit');
    expect(firstIssue(QuerySchema, formula({ shiftAmount: 1 })).path).toBe('shiftUnit');
    expect(firstIssue(QuerySchema, metric({ shiftUnit: 'WEEK' })).path).toBe('shiftAmount');
  });
});

describe('query model: unique names', () => {
  it('finds each later duplicate with the index of the first', () => {
    expect(duplicateQueryNames([{ name: 'a' }, { name: 'b' }, { name: 'a' }, { name: 'a' }])).toEqual([
      { index: 2, first: 0 },
      { index: 3, first: 0 },
    ]);
    expect(duplicateQueryNames([{ name: 'a' }, { name: 'A' }])).toEqual([]);
  });

  it('QueriesSchema refuses a repeated name at <index>.name and accepts distinct ones', () => {
    expect(parse(QueriesSchema, [cost(), metric(), formula()]).success).toBe(true);
    const issue = firstIssue(QueriesSchema, [cost(), metric(), formula({ name: 'a' })]);
    expect(issue).toEqual({ path: '2.name', message: expect.stringContaining('"a"') });
  });
});

describe('query model: whereClause', () => {
  const rule = (field = 'ServiceName') => ({ field, operator: 'in', value: ['AmazonEC2', 3, true] });

  it('accepts rules and nested groups, up to five levels', () => {
    let clause: Record<string, unknown> = { combinator: 'or', rules: [rule()] };
    for (let i = 0; i < 4; i++) clause = { combinator: 'and', rules: [rule(), clause] };
    expect(v.parse(WhereClauseSchema, clause)).toEqual(clause);
  });

  it('refuses a sixth level, naming where', () => {
    let clause: Record<string, unknown> = { combinator: 'or', rules: [rule()] };
    for (let i = 0; i < 5; i++) clause = { combinator: 'and', rules: [clause] };
    const issue = firstIssue(WhereClauseSchema, clause);
    expect(issue.path).toBe('rules.0.rules.0.rules.0.rules.0.rules.0');
    expect(issue.message).toMatch(/at most 5 levels/);
  });

  it('requires field, operator and an array value on a rule; and/or as combinator', () => {
    expect(
      firstIssue(WhereClauseSchema, { combinator: 'and', rules: [{ field: 'x', operator: '=' }] }).path,
    ).toBe('rules.0.value');
    expect(
      firstIssue(WhereClauseSchema, { combinator: 'and', rules: [{ field: 'x', operator: '=', value: 'a' }] })
        .path,
    ).toBe('rules.0.value');
    expect(firstIssue(WhereClauseSchema, { combinator: 'xor', rules: [] }).path).toBe('combinator');
    expect(
      firstIssue(WhereClauseSchema, { combinator: 'and', rules: [{ field: '', operator: '=', value: [] }] })
        .path,
    ).toBe('rules.0.field');
    expect(
      firstIssue(WhereClauseSchema, { combinator: 'and', rules: [{ ...rule(), value: [{ nested: 1 }] }] })
        .path,
    ).toBe('rules.0.value.0');
  });
});

describe('query model: period', () => {
  it('requires aggBy from Hour, Day, Week, Month, Period', () => {
    for (const aggBy of ['Hour', 'Day', 'Week', 'Month', 'Period'])
      expect(parse(PeriodSchema, { aggBy }).success).toBe(true);
    expect(firstIssue(PeriodSchema, {}).path).toBe('aggBy');
    expect(firstIssue(PeriodSchema, { aggBy: 'day' }).path).toBe('aggBy');
  });

  it('takes date-times or null for the dates, and any of the 20 presets or null', () => {
    expect(
      parse(PeriodSchema, {
        aggBy: 'Day',
        startDate: '2025-01-01T00:00:00Z',
        endDate: '2025-01-31T23:59:59.999+01:00',
        datePreset: 'LAST_INVOICE_MONTH',
      }).success,
    ).toBe(true);
    expect(
      parse(PeriodSchema, { aggBy: 'Day', startDate: null, endDate: null, datePreset: null }).success,
    ).toBe(true);
    expect(firstIssue(PeriodSchema, { aggBy: 'Day', startDate: '2025-01-01' }).path).toBe('startDate');
    expect(firstIssue(PeriodSchema, { aggBy: 'Day', datePreset: 'LAST_2_DAYS' }).path).toBe('datePreset');
    expect(
      firstIssue(PeriodSchema, {
        aggBy: 'Day',
        startDate: '2025-02-01T00:00:00Z',
        endDate: '2025-01-01T00:00:00Z',
      }),
    ).toEqual({ path: 'endDate', message: 'endDate must not be before startDate' });
  });

  it('requires all four comparisonPeriod fields', () => {
    const full = {
      startDate: null,
      endDate: '2025-01-01T00:00:00Z',
      enabled: true,
      chartType: 'KPI_BREAKDOWN',
    };
    expect(parse(PeriodSchema, { aggBy: 'Week', comparisonPeriod: full }).success).toBe(true);
    for (const field of Object.keys(full)) {
      const partial: Record<string, unknown> = { ...full };
      delete partial[field];
      expect(firstIssue(PeriodSchema, { aggBy: 'Week', comparisonPeriod: partial }).path).toBe(
        `comparisonPeriod.${field}`,
      );
    }
    expect(
      firstIssue(PeriodSchema, { aggBy: 'Week', comparisonPeriod: { ...full, chartType: 'BAR' } }).path,
    ).toBe('comparisonPeriod.chartType');
  });
});
