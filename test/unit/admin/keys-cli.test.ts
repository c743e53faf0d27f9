import { parseKeysArgs, UsageError } from '../../../scripts/keys';

describe('npm run keys argument parsing', () => {
  it('parses the three commands', () => {
    expect(parseKeysArgs(['create', '--principal', 'user_a', '--name=ci'], {})).toMatchObject({
      command: 'create',
      principal: 'user_a',
      name: 'ci',
    });
    expect(parseKeysArgs(['list', '--org', 'org_x'], {})).toMatchObject({ command: 'list', org: 'org_x' });
    expect(parseKeysArgs(['revoke', '--id', 'key_01abc'], {})).toMatchObject({
      command: 'revoke',
      id: 'key_01abc',
    });
  });

  it('takes the state folder from LOCAL_STATE_DIR when no flag is given', () => {
    expect(parseKeysArgs(['list'], { LOCAL_STATE_DIR: '/tmp/state' }).stateDir).toBe('/tmp/state');
  });

  it.each([
    [[]],
    [['rotate']],
    [['create']],
    [['create', '--principal', 'bob']],
    [['create', '--principal', 'user_a', '--id', 'key_1']],
    [['revoke']],
    [['revoke', '--id', 'not-a-key']],
    [['list', '--org', 'acme']],
    [['list', '--org']],
  ])('refuses %j', (argv) => {
    expect(() => parseKeysArgs(argv, {})).toThrow(UsageError);
  });
});
