import { App } from 'aws-cdk-lib';
import { DeployConfigError, readDeployConfig, readStage } from '../../infra/constructs/deploy-config';
import { PROD_CONTEXT } from './support';

const node = (context: Record<string, unknown>) => new App({ context }).node;

describe('deploy configuration from CDK context', () => {
  test('dev works with no context at all, on obvious placeholders', () => {
    const config = readDeployConfig(node({}));
    expect(config).toMatchObject({
      stage: 'dev',
      jwtIssuer: 'https://idp.example.com/',
      sesIdentity: 'example.com',
      mailFrom: 'FinOps <finops@example.com>',
      throttleRateLimit: 50,
    });
  });

  test('prod without settings fails synth naming every missing key', () => {
    expect(() => readDeployConfig(node({ env: 'prod' }))).toThrow(DeployConfigError);
    try {
      readDeployConfig(node({ env: 'prod' }));
    } catch (error) {
      const message = (error as Error).message;
      for (const key of Object.keys(PROD_CONTEXT)) expect(message).toContain(`-c ${key}=`);
    }
  });

  test('prod with one setting missing names just that one', () => {
    const { jwksUri: _, ...rest } = PROD_CONTEXT;
    expect(() => readDeployConfig(node({ env: 'prod', ...rest }))).toThrow(/\(jwksUri\)/);
  });

  test('prod with every setting resolves them, with prod throttling defaults', () => {
    expect(readDeployConfig(node({ env: 'prod', ...PROD_CONTEXT }))).toMatchObject({
      ...PROD_CONTEXT,
      stage: 'prod',
      jwtOrgClaim: 'org_id',
      throttleRateLimit: 500,
      throttleBurstLimit: 1000,
    });
  });

  test('the From address must belong to the SES identity the grant is scoped to', () => {
    expect(() =>
      readDeployConfig(node({ env: 'prod', ...PROD_CONTEXT, mailFrom: 'FinOps <finops@elsewhere.test>' })),
    ).toThrow(/must be an address of the SES identity acme.test/);
    const single = readDeployConfig(
      node({ env: 'prod', ...PROD_CONTEXT, sesIdentity: 'finops@acme.test', mailFrom: 'finops@acme.test' }),
    );
    expect(single.mailFrom).toBe('finops@acme.test');
  });

  test('URLs must be URLs and env must be dev or prod', () => {
    expect(() =>
      readDeployConfig(node({ env: 'prod', ...PROD_CONTEXT, jwksUri: 'auth.acme.test/jwks' })),
    ).toThrow(/jwksUri.*http\(s\) URL/);
    expect(() => readStage(node({ env: 'staging' }))).toThrow(/must be dev or prod/);
  });
  test('the IdP invitation API and its token secret are optional, validated when given', () => {
    const none = readDeployConfig(node({ env: 'prod', ...PROD_CONTEXT }));
    expect(none.idpApiBaseUrl).toBeUndefined();
    expect(none.idpTokenSecretName).toBeUndefined();
    const both = readDeployConfig(
      node({
        env: 'prod',
        ...PROD_CONTEXT,
        idpApiBaseUrl: 'https://login.acme.test/api',
        idpTokenSecretName: 'finops/prod/idp-token',
      }),
    );
    expect(both).toMatchObject({
      idpApiBaseUrl: 'https://login.acme.test/api',
      idpTokenSecretName: 'finops/prod/idp-token',
    });
    expect(readDeployConfig(node({ idpApiBaseUrl: 'http://localhost:9000' })).idpApiBaseUrl).toBe(
      'http://localhost:9000',
    );
    expect(() => readDeployConfig(node({ idpApiBaseUrl: 'login.acme.test' }))).toThrow(
      /idpApiBaseUrl.*http\(s\) URL/,
    );
    expect(() => readDeployConfig(node({ idpTokenSecretName: 'finops/dev/idp-token' }))).toThrow(
      /idpTokenSecretName is set but idpApiBaseUrl is not/,
    );
  });
  test('the IdP API key introspection settings are optional, validated when given', () => {
    const none = readDeployConfig(node({ env: 'prod', ...PROD_CONTEXT }));
    expect(none.apiKeyIntrospectionUrl).toBeUndefined();
    const all = {
      apiKeyIntrospectionUrl: 'https://login.acme.test/oauth2/introspect',
      apiKeyIntrospectionClientId: 'finops-api',
      apiKeyIntrospectionSecretName: 'finops/prod/introspection-secret',
      apiKeyIntrospectionCacheSeconds: '0',
    };
    expect(readDeployConfig(node({ env: 'prod', ...PROD_CONTEXT, ...all }))).toMatchObject(all);
    for (const url of [
      'http://login.acme.test/introspect',
      'login.acme.test',
      'https://u:p@login.acme.test/i',
    ])
      expect(() => readDeployConfig(node({ apiKeyIntrospectionUrl: url }))).toThrow(
        /apiKeyIntrospectionUrl.*https URL/,
      );
    expect(() => readDeployConfig(node({ apiKeyIntrospectionSecretName: 'x' }))).toThrow(
      /apiKeyIntrospectionSecretName set without apiKeyIntrospectionUrl/,
    );
    for (const cache of ['301', '-1', '1.5', 'soon'])
      expect(() =>
        readDeployConfig(
          node({
            apiKeyIntrospectionUrl: all.apiKeyIntrospectionUrl,
            apiKeyIntrospectionCacheSeconds: cache,
          }),
        ),
      ).toThrow(/apiKeyIntrospectionCacheSeconds/);
  });
});
