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

  it('reports unknown sources, clashes, duplicates, empty targets and bad names', () => {
    expect(
      kinds(
        labelErrors({ name: 'x', columnsMerged: [{ name: 'nope', type: 'label' }], maps: [] }, ctx, false),
      ),
    ).toEqual(['unknown_source']);
    expect(
      kinds(
        labelErrors(
          { name: 'x', columnsMerged: [{ name: 'BilledCost', type: 'column' }], maps: [] },
          ctx,
          false,
        ),
      ),
    ).toEqual(['unknown_source']);
    expect(
      kinds(
        labelErrors({ name: 'x', columnsMerged: [{ name: 'env', type: 'weird' }], maps: [] }, ctx, false),
      ),
    ).toEqual(['source']);
    expect(kinds(labelErrors({ name: 'x', columnsMerged: [], maps: [] }, ctx, false))).toEqual(['source']);
    expect(
      kinds(
        labelErrors(
          { name: 'ProviderName', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] },
          ctx,
          false,
        ),
      ),
    ).toEqual(['clash']);
    expect(
      kinds(
        labelErrors({ name: 'Tier', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] }, ctx, false),
      ),
    ).toEqual(['clash']);
    // An enrichment target column is a dimension of its own: a label may not take its name.
    expect(
      labelErrors(
        { name: 'Cost_Center', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] },
        ctx,
        false,
      ),
    ).toEqual([{ kind: 'clash', message: '"Cost_Center" is a column of an enrichment' }]);
    expect(
      kinds(labelErrors({ name: 'x', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] }, ctx, true)),
    ).toEqual(['duplicate']);
    expect(
      kinds(
        labelErrors(
          {
            name: 'x',
            columnsMerged: [{ name: 'env', type: 'label' }],
            maps: [
              { value: 'a', to: '' },
              { value: 'a', to: 'b' },
            ],
          },
          ctx,
          false,
        ),
      ),
    ).toEqual(['empty_target', 'duplicate_map']);
    expect(
      kinds(labelErrors({ name: '', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] }, ctx, false)),
    ).toEqual(['name']);
    expect(
      kinds(
        labelErrors(
          { name: '9lives', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] },
          ctx,
          false,
        ),
      ),
    ).toEqual(['name']);
    expect(
      kinds(
        labelErrors(
          { name: 'tag:env', columnsMerged: [{ name: 'env', type: 'label' }], maps: [] },
          ctx,
          false,
        ),
      ),
    ).toEqual(['clash']);
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
