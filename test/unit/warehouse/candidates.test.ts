import { buildCandidates, withIngested } from '../../../shared/domain/dimensions/candidates';
import { buildDimensionList, dimensionNames } from '../../../shared/domain/dimensions/dimension-list';
import type { PublishedLabel } from '../../../shared/model/dimensions';

const aggregates = {
  months: [
    { month: '2024-07', cost: 100 },
    { month: '2024-08', cost: 200 },
    { month: '2024-09', cost: 100 },
  ],
  keys: [
    { key: 'team', cost: 150, values: 3, providers: ['Oracle', 'AWS'] },
    { key: 'env', cost: 300, values: 2, providers: ['AWS'] },
  ],
  keyMonths: [
    { key: 'team', month: '2024-08', cost: 100 },
    { key: 'team', month: '2024-09', cost: 50 },
    { key: 'env', month: '2024-07', cost: 100 },
    { key: 'env', month: '2024-08', cost: 200 },
  ],
  keyValues: [
    { key: 'team', value: 'b', cost: 50 },
    { key: 'team', value: 'a', cost: 100 },
    { key: 'env', value: 'prod', cost: 300 },
  ],
};

describe('candidates (pure)', () => {
  const list = buildCandidates(aggregates);

  it('orders by cost with the key present and fills every figure', () => {
    expect(list.map((c) => c.key)).toEqual(['env', 'team']);
    const team = list[1]!;
    expect(team).toEqual({
      usage_start_day: '2024-07-01T00:00:00.000Z',
      key: 'team',
      id: 'team',
      number_values: 3,
      values: [
        { value: 'a', cost_allocated: 100, proportion_cost_allocated: 0.25 },
        { value: 'b', cost_allocated: 50, proportion_cost_allocated: 0.125 },
      ],
      total_cost_key_present: 150,
      total_cost_key_absent: 250,
      proportion_key_present: 0.375,
      proportion_key_absent: 0.625,
      providers: ['AWS', 'Oracle'],
      months: [
        { month: '2024-07', cost: 0 },
        { month: '2024-08', cost: 100 },
        { month: '2024-09', cost: 50 },
      ],
      cost_percentage_change: -50,
    });
    // env has no cost in the last month: -100 %.
    expect(list[0]!.cost_percentage_change).toBe(-100);
  });

  it('answers 0 change and 0 proportions where there is nothing to divide by', () => {
    const [only] = buildCandidates({
      months: [{ month: '2024-09', cost: 0 }],
      keys: [{ key: 'k', cost: 0, values: 1, providers: [] }],
      keyMonths: [],
      keyValues: [{ key: 'k', value: 'v', cost: 0 }],
    });
    expect(only).toMatchObject({
      cost_percentage_change: 0,
      proportion_key_present: 0,
      proportion_key_absent: 0,
    });
    expect(buildCandidates({ months: [], keys: [], keyMonths: [], keyValues: [] })).toEqual([]);
  });

  it('marks keys promoted by a published label as ingested', () => {
    const labels: PublishedLabel[] = [
      {
        name: 'environment',
        columnsMerged: [
          { name: 'env', type: 'label' },
          { name: 'service', type: 'dimension' },
        ],
        maps: [],
        publishedAt: '',
        publishedBy: '',
      },
    ];
    expect(withIngested(list, labels).map((c) => [c.key, c.ingested])).toEqual([
      ['env', true],
      ['team', false],
    ]);
  });

  it('keeps keys differing only by case or whitespace apart and names them on each other as similar_keys', () => {
    const keys = ['team', ' team', 'Team', 'team ', 'te am', 'teams', 'env', 'Environment'];
    const odd = buildCandidates({
      months: [{ month: '2024-09', cost: 100 }],
      keys: keys.map((key, i) => ({ key, cost: i + 1, values: 1, providers: ['AWS'] })),
      keyMonths: [],
      keyValues: [],
    });
    const listed = withIngested(odd, []);
    expect(listed.map((c) => c.key).sort()).toEqual([...keys].sort());
    const similar = Object.fromEntries(listed.map((c) => [c.key, c.similar_keys]));
    expect(similar).toEqual({
      team: [' team', 'Team', 'te am', 'team '],
      ' team': ['Team', 'te am', 'team', 'team '],
      Team: [' team', 'te am', 'team', 'team '],
      'team ': [' team', 'Team', 'te am', 'team'],
      'te am': [' team', 'Team', 'team', 'team '],
      teams: [],
      env: [],
      Environment: [],
    });
    // Each key keeps its own figure.
    expect(listed.find((c) => c.key === ' team')?.total_cost_key_present).toBe(2);
    expect(listed.find((c) => c.key === 'team')?.total_cost_key_present).toBe(1);
  });
});

describe('dimension list (pure)', () => {
  it('lists built-ins, then labels, virtual dimensions and enrichment columns, with proportions', () => {
    const catalog = {
      orgId: 'o',
      refreshedAt: '',
      mode: 'full' as const,
      warnings: [],
      dimensions: [
        { name: 'cost_center', kind: 'enrichment' as const, column: 'd_3' },
        { name: 'tier', kind: 'vdim' as const, column: 'd_2' },
        { name: 'team', kind: 'label' as const, column: 'd_1' },
        { name: 'provider', kind: 'enrichment' as const, column: 'd_4' },
      ],
    };
    expect(dimensionNames(catalog)).toContain('team');
    expect(dimensionNames(catalog)).not.toContain('resource_id');
    expect(dimensionNames(catalog).filter((n) => n === 'provider')).toHaveLength(1);
    const list = buildDimensionList({
      catalog,
      values: {
        total: 200,
        skipped: [],
        values: [
          { dimension: 'team', value: 'a', cost: 50 },
          { dimension: 'provider', value: 'AWS', cost: 200 },
        ],
      },
      labels: [
        {
          name: 'team',
          columnsMerged: [{ name: 'team', type: 'label' }],
          maps: [],
          publishedAt: '',
          publishedBy: '',
        },
      ],
      vdims: [{ name: 'tier', description: 'Cost tier', rules: [], defaultValue: 'other' }],
      enrichments: [
        {
          name: 'cc',
          keyField: 'SubAccountId',
          priority: 0,
          targetColumns: [{ name: 'cost_center', mode: 'merge' }],
          entries: [],
        },
      ],
    });
    const names = list.map((d) => d.name);
    expect(names.slice(-3)).toEqual(['team', 'tier', 'cost_center']);
    expect(names.filter((n) => n === 'provider')).toHaveLength(1);
    expect(list.find((d) => d.name === 'team')).toMatchObject({
      groupTitle: 'Labels',
      values: [{ name: 'a', label: 'a', proportionCostAllocated: 0.25 }],
    });
    expect(list.find((d) => d.name === 'tier')).toMatchObject({
      groupTitle: 'Virtual dimensions',
      description: 'Cost tier',
    });
    expect(list.find((d) => d.name === 'cost_center')).toMatchObject({ groupTitle: 'Enrichments' });
    expect(list.find((d) => d.name === 'provider')?.values).toEqual([
      { name: 'AWS', label: 'AWS', proportionCostAllocated: 1 },
    ]);
  });
});
