import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import {
  CONSOLE_CORS_HEADERS,
  MESSAGE_IMAGE_DAYS,
  oidcConnectOrigins,
} from '../../infra/constructs/console-hosting';
import { DeployConfigError } from '../../infra/constructs/deploy-config';
import { type BuiltStack, buildStack, resourcesOf, WEB_CONSOLE_PREFIX } from './support';

type CfnResource = ReturnType<typeof resourcesOf>[string];
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are open-ended JSON
type Json = any;

/**
 * The web console's hosting in the synthesized template: a private bucket, CloudFront with Origin
 * Access Control and security headers, config.json naming the API, and CORS on the HTTP API for
 * the console's origin only.
 */
let built: BuiltStack;
beforeAll(() => {
  built = buildStack('prod');
}, 120_000);

const one = (type: string): [string, CfnResource] => {
  const all = Object.entries(resourcesOf(built.template, type));
  expect(all).toHaveLength(1);
  return all[0]!;
};

/** A bucket of the stack: its resource and the statements of its one bucket policy. */
function bucketOf(bucket: { node: { defaultChild?: unknown } }) {
  const id = built.idOf(bucket.node.defaultChild as never);
  const resource = built.template.toJSON().Resources[id] as CfnResource;
  const policies = Object.values(resourcesOf(built.template, 'AWS::S3::BucketPolicy')).filter(
    (p) => JSON.stringify(p.Properties!.Bucket) === JSON.stringify({ Ref: id }),
  );
  expect(policies).toHaveLength(1);
  const { Statement } = policies[0]!.Properties!.PolicyDocument as { Statement: Record<string, unknown>[] };
  return { props: resource.Properties!, statements: Statement };
}

describe('web console hosting', () => {
  it('keeps the files in a private, TLS-only bucket', () => {
    // Only CloudFront (this distribution, through OAC) may read it; anything without TLS is denied.
    const { props, statements } = bucketOf(built.stack.console.bucket);
    expect(props.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props.OwnershipControls).toEqual({
      Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }],
    });
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]!.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(allows[0]!.Action).toBe('s3:GetObject');
    const [distId] = one('AWS::CloudFront::Distribution');
    expect(JSON.stringify(allows[0]!.Condition)).toContain(distId);
    expect(
      statements.some(
        (s) => s.Effect === 'Deny' && JSON.stringify(s.Condition).includes('aws:SecureTransport'),
      ),
    ).toBe(true);
  });

  it('serves it through CloudFront with Origin Access Control, HTTPS only', () => {
    // One per origin: the console's files and the message images.
    const oacs = Object.values(resourcesOf(built.template, 'AWS::CloudFront::OriginAccessControl'));
    expect(oacs).toHaveLength(2);
    for (const oac of oacs)
      expect(oac.Properties!.OriginAccessControlConfig).toMatchObject({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      });
    const [, dist] = one('AWS::CloudFront::Distribution');
    const cfg = dist.Properties!.DistributionConfig as Json;
    expect(cfg.DefaultRootObject).toBe('index.html');
    expect(cfg.Origins).toHaveLength(2);
    for (const origin of cfg.Origins) {
      expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Id'] });
      expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    }
    expect(cfg.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(cfg.DefaultCacheBehavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(cfg.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: expect.any(String) });
  });

  it('sends the security headers: CSP connecting to the API origin only, HSTS, no framing, nosniff', () => {
    const [rhpId, rhp] = one('AWS::CloudFront::ResponseHeadersPolicy');
    const [, dist] = one('AWS::CloudFront::Distribution');
    expect(
      (dist.Properties!.DistributionConfig as Json).DefaultCacheBehavior.ResponseHeadersPolicyId,
    ).toEqual({ Ref: rhpId });
    const sec = (rhp.Properties!.ResponseHeadersPolicyConfig as Json).SecurityHeadersConfig;
    const csp = JSON.stringify(sec.ContentSecurityPolicy.ContentSecurityPolicy);
    const [apiId] = one('AWS::ApiGatewayV2::Api');
    // connect-src: the page's own origin (config.json) and the API's execute-api origin, nothing else.
    expect(csp).toMatch(/connect-src 'self' https:\/\/"/);
    // Without an identity provider configured, no other host: the directive ends after the API.
    expect(csp).toMatch(
      /connect-src 'self' https:\/\/",\{"Ref":"[^"]+"\},"\.execute-api\.",\{"Ref":"AWS::Region"\},"\.",\{"Ref":"AWS::URLSuffix"\},"; object-src/,
    );
    expect(csp).toContain(JSON.stringify({ Ref: apiId }));
    expect(csp).toContain('.execute-api.');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('*');
    expect(sec.ContentSecurityPolicy.Override).toBe(true);
    expect(sec.StrictTransportSecurity).toMatchObject({
      AccessControlMaxAgeSec: 31_536_000,
      IncludeSubdomains: true,
      Override: true,
    });
    expect(sec.ContentTypeOptions).toEqual({ Override: true });
    expect(sec.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(sec.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
  });

  it('serves message images from a private bucket under /message-images/, kept a year, written by the notify worker only', () => {
    // CloudFront (this distribution) may read it; nothing else is allowed by the bucket.
    const { props, statements } = bucketOf(built.stack.console.messageImages);
    expect(props.PublicAccessBlockConfiguration).toMatchObject({
      BlockPublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props.LifecycleConfiguration).toEqual({
      Rules: [{ Id: 'ExpireMessageImages', ExpirationInDays: MESSAGE_IMAGE_DAYS, Status: 'Enabled' }],
    });
    const allows = statements.filter((st) => st.Effect === 'Allow');
    expect(allows.map((a) => [a.Principal, a.Action])).toEqual([
      [{ Service: 'cloudfront.amazonaws.com' }, 's3:GetObject'],
    ]);
    // The behaviour: GET and HEAD over HTTPS, the console's security headers.
    const [, dist] = one('AWS::CloudFront::Distribution');
    const cfg = dist.Properties!.DistributionConfig as Json;
    expect(cfg.CacheBehaviors).toHaveLength(1);
    expect(cfg.CacheBehaviors[0]).toMatchObject({
      PathPattern: '/message-images/*',
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      ResponseHeadersPolicyId: cfg.DefaultCacheBehavior.ResponseHeadersPolicyId,
    });
    // Only the notify worker may write there, PutObject alone, under the prefix; it knows the URL.
    const writers = Object.entries(resourcesOf(built.template, 'AWS::IAM::Policy')).flatMap(([id, p]) =>
      (
        p.Properties!.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
      ).Statement.filter((st) => JSON.stringify(st.Resource).includes('message-images')).map((st) => [
        id,
        st.Action,
      ]),
    );
    const notify = built.stack.workerFunctions.get('notify')!;
    expect(writers).toEqual([[expect.stringContaining('Workernotify'), 's3:PutObject']]);
    const fnId = built.idOf(notify.fn.node.defaultChild as never);
    const env = (built.template.toJSON().Resources[fnId] as CfnResource).Properties!.Environment as Json;
    expect(Object.keys(env.Variables)).toEqual(
      expect.arrayContaining(['MESSAGE_IMAGES_BUCKET', 'MESSAGE_IMAGES_URL']),
    );
  });

  it('writes config.json naming the API URL, with the console files, no-cache, and invalidates', () => {
    const [, dep] = one('Custom::CDKBucketDeployment');
    const p = dep.Properties!;
    expect(p.SourceObjectKeys).toHaveLength(2);
    // Source.jsonData: the API URL is a deploy-time value substituted into config.json.
    const [apiId] = one('AWS::ApiGatewayV2::Api');
    const markers = JSON.stringify(p.SourceMarkers);
    expect(markers).toContain(`{"Ref":"${apiId}"}`);
    expect(markers).toContain('AWS::URLSuffix');
    expect(p.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
    expect(p.DistributionPaths).toEqual(['/*']);
    expect(p.Prune).toBe(true);
  });

  it("opens the API's CORS to the console's origin only", () => {
    const [apiId, api] = one('AWS::ApiGatewayV2::Api');
    // Not in the API's template (the distribution's CSP names the API: a cycle), but set once both exist.
    expect(api.Properties!.CorsConfiguration).toBeUndefined();
    const updates = Object.values(resourcesOf(built.template, 'Custom::AWS'));
    expect(updates).toHaveLength(1);
    const [distId] = one('AWS::CloudFront::Distribution');
    // The call as the custom resource receives it, with references written <<Ref:id>> / <<id.attr>>.
    const call = (v: unknown) => {
      const parts = (v as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
      const text = parts
        .map((x) =>
          typeof x === 'string'
            ? x
            : 'Ref' in (x as object)
              ? `<<Ref:${(x as { Ref: string }).Ref}>>`
              : `<<${(x as { 'Fn::GetAtt': string[] })['Fn::GetAtt'].join('.')}>>`,
        )
        .join('');
      return JSON.parse(text) as { action: string; parameters: Json };
    };
    for (const phase of ['Create', 'Update']) {
      const c = call(updates[0]!.Properties![phase]);
      expect(c.action).toBe('UpdateApi');
      expect(c.parameters.ApiId).toBe(`<<Ref:${apiId}>>`);
      expect(c.parameters.CorsConfiguration.AllowOrigins).toEqual([`https://<<${distId}.DomainName>>`]);
      expect(c.parameters.CorsConfiguration.AllowHeaders).toEqual(CONSOLE_CORS_HEADERS);
      expect(c.parameters.CorsConfiguration.AllowOrigins.join()).not.toContain('*');
    }
    expect(call(updates[0]!.Properties!.Delete).action).toBe('DeleteCorsConfiguration');
    // It may change this API's CORS and nothing else.
    const policies = Object.values(resourcesOf(built.template, 'AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties!.PolicyDocument).includes('apigateway:'),
    );
    expect(policies).toHaveLength(1);
    const statements = (
      policies[0]!.Properties!.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
    ).Statement;
    expect(statements.map((st) => st.Action).sort()).toEqual(['apigateway:DELETE', 'apigateway:PATCH']);
    for (const st of statements) expect(JSON.stringify(st.Resource)).toContain(`{"Ref":"${apiId}"}`);
  });

  it("lives in its own nested stack, whose only functions are CDK's deployment helpers", () => {
    const nested = built.templates.filter((t) => t.path.endsWith('/WebConsole'));
    expect(nested).toHaveLength(1);
    const fns = Object.values(nested[0]!.json.Resources ?? {}).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    // BucketDeployment's (Python, CDK's) and AwsCustomResource's (Node, CDK's).
    expect(fns).toHaveLength(2);
    const all = Object.keys(resourcesOf(built.template, 'AWS::Lambda::Function'));
    expect(all.filter((id) => id.startsWith(WEB_CONSOLE_PREFIX))).toHaveLength(2);
  });

  it('prints the console URL beside the API URL', () => {
    const outputs = built.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(JSON.stringify(outputs.ConsoleUrl!.Value)).toContain('DomainName');
    built.template.hasOutput('ApiUrl', Match.anyValue());
  });

  it('adds no unacknowledged cdk-nag finding', () => {
    const findings = [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
      pack.validateScope(built.stack).violations.map((v) => ({
        rule: v.ruleName,
        resources: v.violatingResources.map((r) => r.constructPath),
      })),
    );
    expect(findings).toEqual([]);
  });
});

/** The console's OpenID Connect sign-in: config.json's `oidc` and the token endpoint in the CSP. */
describe('web console sign-in with an identity provider', () => {
  const cspOf = (b: BuiltStack): string => {
    const [, rhp] = Object.entries(resourcesOf(b.template, 'AWS::CloudFront::ResponseHeadersPolicy'))[0]!;
    return JSON.stringify(
      (rhp.Properties!.ResponseHeadersPolicyConfig as Json).SecurityHeadersConfig.ContentSecurityPolicy
        .ContentSecurityPolicy,
    );
  };

  it("adds the token endpoint's origin to connect-src, and passes the IdP to config.json", () => {
    const b = buildStack('prod', {
      context: {
        consoleOidcIssuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Abc',
        consoleOidcClientId: 'finops-console',
        consoleOidcAuthorizationEndpoint: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/authorize',
        consoleOidcTokenEndpoint: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/token',
      },
    });
    const csp = cspOf(b);
    const connect = /connect-src ([^;]*);/.exec(csp)![1]!;
    expect(connect).toContain(' https://acme.auth.eu-west-1.amazoncognito.com');
    // Both endpoints given: no discovery, so the issuer's host is not reachable.
    expect(connect).not.toContain('cognito-idp');
    expect(connect).not.toContain('/oauth2');
    // config.json (a staged asset of the deployment) carries the IdP: issuer, client, endpoints.
    const configs = readdirSync(b.app.outdir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('config.json'))
      .map((f) => JSON.parse(readFileSync(join(b.app.outdir, f), 'utf8')) as Json);
    expect(configs.map((c) => c.oidc)).toEqual([
      {
        issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Abc',
        clientId: 'finops-console',
        authorizationEndpoint: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/authorize',
        tokenEndpoint: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/token',
      },
    ]);
  }, 120_000);

  it('reaches the issuer for discovery when an endpoint is not given', () => {
    expect(oidcConnectOrigins(undefined)).toEqual([]);
    expect(oidcConnectOrigins({ issuer: 'https://login.acme.test/realms/finops', clientId: 'c' })).toEqual([
      'https://login.acme.test',
    ]);
    expect(
      oidcConnectOrigins({
        issuer: 'https://login.acme.test/',
        clientId: 'c',
        tokenEndpoint: 'https://sso.acme.test/token',
      }),
    ).toEqual(['https://login.acme.test', 'https://sso.acme.test']);
  });

  it('refuses half a configuration or a non-https IdP at synth', () => {
    expect(() => buildStack('prod', { context: { consoleOidcIssuer: 'https://login.acme.test/' } })).toThrow(
      DeployConfigError,
    );
    expect(() =>
      buildStack('prod', {
        context: { consoleOidcIssuer: 'http://login.acme.test/', consoleOidcClientId: 'c' },
      }),
    ).toThrow(/must be an https URL/);
  });
});
