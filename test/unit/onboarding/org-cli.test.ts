import { OrgError, parseOrgArgs, target, UsageError } from '../../../scripts/org';

describe('npm run org argument parsing', () => {
  it('parses create, list and show', () => {
    expect(
      parseOrgArgs(['create', 'org_acme', '--name', ' Acme Corp ', '--timezone=Europe/Paris'], {}),
    ).toMatchObject({ command: 'create', org: 'org_acme', name: 'Acme Corp', timezone: 'Europe/Paris' });
    expect(parseOrgArgs(['create', 'org_acme'], {})).toMatchObject({ name: 'org_acme', timezone: 'UTC' });
    expect(parseOrgArgs(['list', '--table', 't1', '--region', 'eu-west-1'], {})).toMatchObject({
      command: 'list',
      table: 't1',
      region: 'eu-west-1',
    });
    expect(parseOrgArgs(['show', 'org_acme'], { LOCAL_STATE_DIR: '/tmp/s' })).toMatchObject({
      command: 'show',
      org: 'org_acme',
      stateDir: '/tmp/s',
    });
  });

  it.each([
    [[]],
    [['delete', 'org_a']],
    [['create']],
    [['create', 'acme']],
    [['create', 'org_a', 'org_b']],
    [['create', 'org_a', '--timezone', 'Mars/Olympus']],
    [['create', 'org_a', '--name', 'x'.repeat(101)]],
    [['create', 'org_a', '--name']],
    [['show', 'org_a', '--name', 'x']],
    [['list', 'org_a']],
    [['list', '--region', 'eu-west-1']],
    [['update', 'org_a']],
    [['update', 'org_a', '--reporting-currency', 'CHF']],
    [['update', 'org_a', '--timezone', 'Mars/Olympus']],
    [['update', 'org_a', '--name', '   ']],
  ])('refuses %j', (argv) => {
    expect(() => parseOrgArgs(argv, {})).toThrow(UsageError);
  });
});

describe('npm run org -- update', () => {
  it('takes the settings given, validated as PATCH /organization validates them', () => {
    expect(
      parseOrgArgs(['update', 'org_acme', '--reporting-currency', 'eur', '--timezone=Asia/Tokyo'], {}),
    ).toEqual(
      expect.objectContaining({
        command: 'update',
        org: 'org_acme',
        settings: { reportingCurrency: 'EUR', timezone: 'Asia/Tokyo' },
      }),
    );
    expect(parseOrgArgs(['update', 'org_acme', '--name', ' Acme '], {})).toMatchObject({
      settings: { name: 'Acme' },
    });
  });
});

describe('npm run org target', () => {
  it('--table is a deployed table: no local endpoint, the region given or from the environment', () => {
    const env: NodeJS.ProcessEnv = {
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
      AWS_DEFAULT_REGION: 'eu-west-3',
    };
    expect(target({ stateDir: '/nowhere', table: 'CostTable' }, env)).toBe('table CostTable (eu-west-3)');
    expect(env).toMatchObject({ TABLE_NAME: 'CostTable', AWS_REGION: 'eu-west-3' });
    expect(env.DYNAMODB_ENDPOINT).toBeUndefined();
  });

  it('without a table, a session or an endpoint, says no stack is running', () => {
    expect(() => target({ stateDir: '/nowhere' }, {})).toThrow(OrgError);
    expect(() => target({ stateDir: '/nowhere' }, {})).toThrow(
      'no running stack found (/nowhere/session.json is missing)',
    );
  });
});
