import * as v from 'valibot';
import { upgradeWidget } from '../../../shared/db/reports-legacy';
import { ReportWidget } from '../../../shared/model/report-schemas';

describe('widgets with the first release names', () => {
  it.each([
    [
      'a TABLE digest',
      {
        type: 'DIGEST',
        view: 'TABLE',
        groupBy: ['service', 'region'],
        minCostChange: 50,
        minPercentChange: 10,
        limit: 7,
      },
      {
        type: 'DIGEST',
        groupBy: 'service',
        additionalGroupBy: ['region'],
        display: 'table',
        minAbsoluteDiff: 50,
        minRelativeDiff: 10,
        topLargestAbsoluteChange: 10,
      },
    ],
    [
      'a LIST digest of four dimensions',
      { type: 'DIGEST', view: 'LIST', groupBy: ['a', 'b', 'c', 'd'], limit: 50 },
      {
        type: 'DIGEST',
        groupBy: 'a',
        additionalGroupBy: ['b', 'c', 'd'],
        display: 'tree',
        topLargestAbsoluteChange: 20,
      },
    ],
    [
      'a digest with only groupBy',
      { type: 'DIGEST', groupBy: ['service'] },
      { type: 'DIGEST', groupBy: 'service', display: 'table' },
    ],
    [
      'a TOP_FLOP',
      { type: 'TOP_FLOP', groupBy: 'service', limit: 3 },
      { type: 'TOP_FLOP', groupBy: 'service', topN: 3, flopN: 3 },
    ],
  ])('upgrades %s and the result validates', (_label, old, upgraded) => {
    expect(upgradeWidget(old)).toEqual(upgraded);
    expect(v.safeParse(ReportWidget, upgradeWidget(old)).success).toBe(true);
  });

  it('leaves new shapes and mixed ones alone, so validation names the unknown field', () => {
    const fresh = { type: 'DIGEST', groupBy: 'service', display: 'summary' };
    expect(upgradeWidget(fresh)).toBe(fresh);
    const mixed = { type: 'DIGEST', minCostChange: 1, minAbsoluteDiff: 2 };
    expect(upgradeWidget(mixed)).toBe(mixed);
    expect(v.safeParse(ReportWidget, mixed).success).toBe(false);
  });

  it('still refuses a table of three dimensions given with the old names', () => {
    const r = v.safeParse(ReportWidget, upgradeWidget({ type: 'DIGEST', groupBy: ['a', 'b', 'c'] }));
    expect(r.success).toBe(false);
  });
});
