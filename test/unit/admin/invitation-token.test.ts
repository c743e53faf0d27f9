import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { resetConfig } from '../../../shared/config';
import {
  httpInvitationSender,
  type Invitation,
  InvitationError,
  resetInvitationToken,
} from '../../../shared/domain/teams/invitations';

// The IdP API token in AWS: a Secrets Manager secret (its ARN in IDP_API_TOKEN_SECRET_ARN), read
// once per container; locally the raw IDP_API_TOKEN. Secrets Manager is mocked and fetch is
// replaced, so nothing leaves the process.
const secrets = mockClient(SecretsManagerClient);
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:finops/idp-token-AbCdEf';
const VARS = ['IDP_API_BASE_URL', 'IDP_API_TOKEN', 'IDP_API_TOKEN_SECRET_ARN'] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
let fetchSpy: jest.SpyInstance;

function configure(vars: Partial<Record<(typeof VARS)[number], string>>) {
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, vars);
  resetConfig();
}

const invitation = (email: string): Invitation => ({
  orgId: 'org_demo',
  teamId: 'team_platform',
  teamName: 'Platform',
  email,
  invitedById: 'user_admin',
  idempotencyKey: `key-${email}`,
});

/** The Authorization header of each call fetch received. */
const authorizations = () =>
  fetchSpy.mock.calls
    .map(([, init]) => (init as RequestInit).headers as Record<string, string>)
    .map((h) => h.authorization);

beforeEach(() => {
  secrets.reset();
  resetInvitationToken();
  fetchSpy = jest
    .spyOn(globalThis, 'fetch')
    .mockImplementation(async () => new Response(JSON.stringify({ id: 'inv_1' }), { status: 201 }));
});

afterEach(() => fetchSpy.mockRestore());

afterAll(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  resetConfig();
});

describe('the IdP API token', () => {
  it('reads the secret once per container and sends it as the bearer token', async () => {
    configure({ IDP_API_BASE_URL: 'https://idp.example.test/api/', IDP_API_TOKEN_SECRET_ARN: SECRET_ARN });
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: ' s3cr3t-token\n' });
    const sender = httpInvitationSender();
    expect(sender.configured).toBe(true);
    await expect(sender.send(invitation('a@example.test'))).resolves.toEqual({ invitationId: 'inv_1' });
    await httpInvitationSender().send(invitation('b@example.test'));
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(authorizations()).toEqual(['Bearer s3cr3t-token', 'Bearer s3cr3t-token']);
    expect(fetchSpy.mock.calls[0]?.[0]).toBe('https://idp.example.test/api/invitations');
  });

  it('prefers the secret over a raw IDP_API_TOKEN, and uses the raw token when no secret is configured', async () => {
    configure({
      IDP_API_BASE_URL: 'https://idp.example.test',
      IDP_API_TOKEN: 'raw-token',
      IDP_API_TOKEN_SECRET_ARN: SECRET_ARN,
    });
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'from-secret' });
    await httpInvitationSender().send(invitation('a@example.test'));
    configure({ IDP_API_BASE_URL: 'https://idp.example.test', IDP_API_TOKEN: 'raw-token' });
    await httpInvitationSender().send(invitation('b@example.test'));
    configure({ IDP_API_BASE_URL: 'https://idp.example.test' });
    await httpInvitationSender().send(invitation('c@example.test'));
    expect(authorizations()).toEqual(['Bearer from-secret', 'Bearer raw-token', undefined]);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('fails the invitation when the secret cannot be read, without caching the failure', async () => {
    configure({ IDP_API_BASE_URL: 'https://idp.example.test', IDP_API_TOKEN_SECRET_ARN: SECRET_ARN });
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }))
      .resolves({ SecretString: 'second-try' });
    const failed = await httpInvitationSender()
      .send(invitation('a@example.test'))
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(InvitationError);
    expect((failed as InvitationError).message).toBe('the identity provider token could not be read');
    expect(fetchSpy).not.toHaveBeenCalled();
    await httpInvitationSender().send(invitation('a@example.test'));
    expect(authorizations()).toEqual(['Bearer second-try']);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses an empty secret', async () => {
    configure({ IDP_API_BASE_URL: 'https://idp.example.test', IDP_API_TOKEN_SECRET_ARN: SECRET_ARN });
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '  ' });
    await expect(httpInvitationSender().send(invitation('a@example.test'))).rejects.toThrow(
      'the identity provider token could not be read',
    );
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
