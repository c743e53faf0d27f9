import { compileCondition } from '../../../shared/warehouse/conditions';

describe('enrichment conditions (CEL, evaluated per distinct input)', () => {
  it('finds the FOCUS columns an expression reads', () => {
    expect(compileCondition('input.ServiceName == "EC2" && input.Tags["team"] == "a"').fields).toEqual([
      'ServiceName',
      'Tags',
    ]);
    expect(compileCondition('input["RegionId"].startsWith("us-")').fields).toEqual(['RegionId']);
    expect(compileCondition('true').fields).toEqual([]);
    expect(() => compileCondition('input.Nope == "x"')).toThrow();
  });

  it('evaluates with CEL semantics; nulls read as zero values; errors are false', () => {
    const c = compileCondition('input.BilledCost > 1.0 && input.ServiceName.startsWith("Amazon")');
    expect(c.test([2.5, 'Amazon S3'])).toBe(true);
    expect(c.test([0.5, 'Amazon S3'])).toBe(false);
    expect(c.test([null, 'Amazon S3'])).toBe(false);
    const tags = compileCondition('input.Tags["env"] == "dev"');
    expect(tags.test(['{"env":"dev"}'])).toBe(true);
    expect(tags.test(['{"team":"x"}'])).toBe(false); // missing key: an error in CEL, false here
    expect(tags.test([null])).toBe(false);
    const ts = compileCondition('input.ChargePeriodStart >= timestamp("2024-09-15T00:00:00Z")');
    expect(ts.test(['2024-09-16 00:00:00'])).toBe(true);
    expect(ts.test(['2024-09-14 23:00:00'])).toBe(false);
    expect(compileCondition('input.ResourceName == ""').test([null])).toBe(true);
  });
});
