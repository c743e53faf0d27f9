import { CEL_LIMITS, checkConditions, compileCondition } from '../../../shared/warehouse/conditions';

function rejection(expression: string): string {
  try {
    checkConditions(expression);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`expected ${expression} to be rejected`);
}

describe('enrichment conditions (CEL)', () => {
  it('accepts boolean expressions over input.<FOCUS column> and reports the fields read', () => {
    expect(checkConditions('input.ProviderName == "AWS" && input.BilledCost > 10.0').fields).toEqual([
      'BilledCost',
      'ProviderName',
    ]);
    expect(checkConditions('"env" in input.Tags && input.Tags["env"] == "prod"').fields).toEqual(['Tags']);
    expect(checkConditions('input.ChargePeriodStart >= timestamp("2024-09-01T00:00:00Z")').fields).toEqual([
      'ChargePeriodStart',
    ]);
    expect(checkConditions('input["ServiceName"].startsWith("Amazon")').fields).toEqual(['ServiceName']);
    expect(checkConditions('input.Tags.exists(k, k.startsWith("aks-"))').fields).toEqual(['Tags']);
  });

  it('rejects syntax errors', () => {
    expect(rejection('input.ServiceName ==')).toMatch(/^invalid CEL: /);
    expect(rejection('input.ServiceName == "a')).toMatch(/^invalid CEL: /);
  });

  it('rejects unknown fields and any variable other than input', () => {
    expect(rejection('input.Unknown == "x"')).toBe('unknown field input.Unknown');
    expect(rejection('input["x_custom"] == "x"')).toBe('unknown field input.x_custom');
    expect(rejection('user.name == "x"')).toMatch(/Unknown variable: user/);
  });

  it('rejects dynamic or whole-object use of input', () => {
    expect(rejection('input[input.ServiceName] == "x"')).toBe('fields must be referenced as input.<field>');
    expect(rejection('input == input')).toBe('fields must be referenced as input.<field>');
    expect(rejection('[1].exists(input, input == 1)')).toBe('fields must be referenced as input.<field>');
  });

  it('rejects expressions that are not boolean or mistyped', () => {
    expect(rejection('input.ServiceName')).toBe('must evaluate to a bool, not string');
    expect(rejection('input.BilledCost + "x" == "y"')).toMatch(/^invalid CEL: /);
  });

  it('rejects over-deep, over-large and over-long expressions', () => {
    const deep = `${'('.repeat(CEL_LIMITS.maxDepth + 2)}true${')'.repeat(CEL_LIMITS.maxDepth + 2)}`;
    expect(rejection(deep)).toMatch(/maxDepth/);
    const wide = Array.from({ length: 200 }, () => '1').join('+');
    expect(wide.length).toBeLessThan(2000);
    expect(rejection(`${wide} > 0`)).toMatch(/maxAstNodes/);
    expect(rejection(`input.ServiceName == "${'a'.repeat(2000)}"`)).toBe('must be at most 2000 characters');
    expect(rejection('   ')).toBe('must not be empty (omit it instead)');
  });

  it('refuses regex matching and nested comprehensions', () => {
    expect(rejection('input.ServiceName.matches("(a+)+$")')).toBe('function matches() is not allowed');
    expect(rejection('[1, 2].all(x, [3].exists(y, y == x))')).toBe('nested comprehensions are not allowed');
  });

  it('compiles into a row predicate: nulls read as zero values, errors do not match', () => {
    const c = compileCondition(
      'input.ServiceName == "EC2" && input.BilledCost > 1.0 && input.Tags["env"] == "prod" && input.ChargePeriodStart >= timestamp("2024-09-01T00:00:00Z")',
    );
    expect(c.fields).toEqual(['BilledCost', 'ChargePeriodStart', 'ServiceName', 'Tags']);
    const row = {
      ServiceName: 'EC2',
      BilledCost: '2.5',
      Tags: '{"env":"prod"}',
      ChargePeriodStart: '2024-09-02 00:00:00',
    };
    expect(c.matches(row)).toBe(true);
    expect(c.matches({ ...row, BilledCost: 0.5 })).toBe(false);
    expect(c.matches({ ...row, ChargePeriodStart: new Date('2024-08-31T23:00:00Z') })).toBe(false);
    // A missing tag key raises an error in CEL: the row does not match.
    expect(c.matches({ ...row, Tags: '{"team":"a"}' })).toBe(false);
    expect(c.matches({ ...row, Tags: null })).toBe(false);
    expect(compileCondition('input.RegionId == ""').matches({ RegionId: null })).toBe(true);
    expect(compileCondition('input.ContractedCost == 0.0').matches({ ContractedCost: null })).toBe(true);
  });
});

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
