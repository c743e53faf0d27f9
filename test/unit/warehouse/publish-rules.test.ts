import { labelErrors, type RulesContext, vdimErrors } from '../../../shared/domain/dimensions/publish-rules';

const ctx: RulesContext = {
  tagKeys: new Set(['env', 'environment', 'team']),
  labelNames: new Set(['team_label']),
  vdimNames: new Map([['vdim_1', 'tier']]),
  enrichmentColumns: new Set(['cost_center']),
};
const kinds = (errors: { kind: string }[]) => errors.map((e) => e.kind);

describe('per-draft publish rules', () => {
  it('accepts a label merging tag keys and built-in columns with maps', () => {
    expect(
      labelErrors(
        {
          name: 'env',
          columnsMerged: [
            { name: 'env', type: 'label' },
            { name: 'environment', type: 'tag' },
            { name: 'ResourceName', type: 'column' },
            { name: 'region', type: 'dimension' },
          ],
          maps: [{ value: 'prod', to: 'production' }],
        },
        ctx,
        false,
      ),
    ).toEqual([]);
  });

  const env = [{ name: 'env', type: 'label' }];
  it.each([
    ['an unknown tag key', 'x', [{ name: 'nope', type: 'label' }], [], false, ['unknown_source']],
    ['an unknown column', 'x', [{ name: 'BilledCost', type: 'column' }], [], false, ['unknown_source']],
    ['a source of an unknown type', 'x', [{ name: 'env', type: 'weird' }], [], false, ['source']],
    ['no source', 'x', [], [], false, ['source']],
    ['a built-in column name', 'ProviderName', env, [], false, ['clash']],
    ["a virtual dimension's name", 'Tier', env, [], false, ['clash']],
    ['a name twice in the request', 'x', env, [], true, ['duplicate']],
    [
      'an empty map target and a value mapped twice',
      'x',
      env,
      [
        { value: 'a', to: '' },
        { value: 'a', to: 'b' },
      ],
      false,
      ['empty_target', 'duplicate_map'],
    ],
    ['an empty name', '', env, [], false, ['name']],
    ['a name starting with a digit', '9lives', env, [], false, ['name']],
    ['a tag-prefixed name', 'tag:env', env, [], false, ['clash']],
  ])('reports %s', (_what, name, columnsMerged, maps, duplicate, expected) => {
    expect(kinds(labelErrors({ name, columnsMerged, maps }, ctx, duplicate))).toEqual(expected);
  });

  it('reports a name taken by an enrichment target column as a clash', () => {
    // An enrichment target column is a dimension of its own: a label may not take its name.
    expect(
      labelErrors(
        { name: 'Cost_Center', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] },
        ctx,
        false,
      ),
    ).toEqual([{ kind: 'clash', message: '"Cost_Center" is a column of an enrichment' }]);
  });

  it('checks a virtual dimension against labels, enrichment columns and other names', () => {
    const rule = (field: string, operator = 'in') => ({
      value: 'v',
      whereClause: { combinator: 'and' as const, rules: [{ field, operator, value: ['x'] }] },
    });
    const def = (over = {}) => ({
      name: 'stage',
      description: '',
      rules: [rule('team_label')],
      defaultValue: 'other',
      ...over,
    });
    expect(vdimErrors('vdim_2', def(), ctx, false)).toEqual([]);
    expect(
      vdimErrors(
        'vdim_2',
        def({ rules: [rule('cost_center'), rule('tag:anything'), rule('service')] }),
        ctx,
        false,
      ),
    ).toEqual([]);
    expect(kinds(vdimErrors('vdim_2', def({ rules: [rule('stage')] }), ctx, false))).toEqual([
      'invalid_rule',
    ]);
    expect(kinds(vdimErrors('vdim_2', def({ rules: [rule('team_label', 'like')] }), ctx, false))).toEqual([
      'invalid_rule',
    ]);
    expect(kinds(vdimErrors('vdim_2', def({ name: 'tier' }), ctx, false))).toEqual(['duplicate']);
    expect(vdimErrors('vdim_1', def({ name: 'tier' }), ctx, false)).toEqual([]);
    expect(kinds(vdimErrors('vdim_2', def({ name: 'team_label' }), ctx, false))).toEqual(['clash']);
    expect(kinds(vdimErrors('vdim_2', def({ name: 'region' }), ctx, false))).toEqual(['clash']);
    expect(kinds(vdimErrors('vdim_2', def({ rules: [], defaultValue: null }), ctx, false))).toEqual([
      'empty_target',
    ]);
    expect(kinds(vdimErrors('vdim_2', def({ defaultValue: '' }), ctx, false))).toEqual(['empty_target']);
  });
});
