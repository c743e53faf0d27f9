import { Aws, DockerImage, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CONSOLE_DIR, writeConsoleSync } from '../../console/bundle';
import { MESSAGE_IMAGES_PREFIX } from '../../shared/cloud/message-images';
import { privateBucket } from './private-bucket';

/** Days a published message image is kept (the bucket's lifecycle rule): a year of message history. */
export const MESSAGE_IMAGE_DAYS = 365;

export interface ConsoleHostingProps {
  /** The HTTP API the console calls (its CORS is opened to the console's origin only). */
  api: HttpApi;
  /** The API's base URL, written to `config.json` (`apiBaseUrl`). */
  apiUrl: string;
  /** Where S3 writes the console bucket's server access logs. */
  accessLogsBucket: IBucket;
  /** Retention and removal of the log group of CDK's deployment functions (the stage's). */
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  /** The OpenID Connect sign-in, written to `config.json` (`oidc`); absent: keys and pasted JWTs. */
  oidc?: ConsoleOidc;
}

/** The console's IdP (a public client with PKCE): `config.json`'s `oidc`. */
export interface ConsoleOidc {
  issuer: string;
  clientId: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
}

/**
 * The origins the page must reach for sign-in: the token endpoint's (given, or on the issuer's
 * host when discovered) and the issuer's when the discovery document is read (an endpoint not
 * given). The authorization endpoint is a navigation, not a connection: CSP does not govern it.
 */
export function oidcConnectOrigins(oidc: ConsoleOidc | undefined): string[] {
  if (!oidc) return [];
  const origins = new Set<string>();
  if (!oidc.authorizationEndpoint || !oidc.tokenEndpoint) origins.add(new URL(oidc.issuer).origin);
  if (oidc.tokenEndpoint) origins.add(new URL(oidc.tokenEndpoint).origin);
  return [...origins];
}

/** Request headers the console sends cross-origin (the bearer credential, JSON bodies, conditional writes). */
export const CONSOLE_CORS_HEADERS = ['authorization', 'content-type', 'if-match', 'idempotency-key'];
export const CONSOLE_CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The web console in AWS (docs/console.md): its static files in a private S3 bucket (public access
 * blocked, TLS only) served by CloudFront through Origin Access Control, with security headers
 * (CSP allowing connections to the page's own origin, for `config.json`, and the API's origin only;
 * HSTS; `frame-ancestors 'none'` and X-Frame-Options DENY; nosniff; no referrer). `config.json`
 * (`{apiBaseUrl}`) is written beside the files by the deployment, so one build serves every stage.
 *
 * CORS: the API allows the distribution's origin only. It is set on the API after both exist (an
 * `UpdateApi` call), because the API's CORS names the distribution while the distribution's CSP
 * names the API: set in the template, each would depend on the other.
 */
export class ConsoleHosting extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly headers: ResponseHeadersPolicy;
  /** `https://<distribution>.cloudfront.net`: the console's origin, the one CORS allows. */
  readonly origin: string;
  /** The API's origin, the one the CSP lets the page connect to. */
  readonly apiOrigin: string;
  /**
   * Images messages show by URL (a Teams card's chart; shared/cloud/message-images.ts), served by
   * the distribution under `/message-images/` and deleted after `MESSAGE_IMAGE_DAYS`.
   */
  readonly messageImages: Bucket;
  /** `https://<distribution>/message-images`: the images' base URL. */
  readonly messageImagesUrl: string;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);

    this.bucket = privateBucket(this, 'Files', {
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'console/',
      // Build output only: a new deploy writes it again.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });

    this.apiOrigin = `https://${props.api.apiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`;
    this.headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Web console: CSP (self + the API), HSTS, no framing, nosniff, no referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            ["connect-src 'self'", this.apiOrigin, ...oidcConnectOrigins(props.oidc)].join(' '),
            "object-src 'none'",
            "frame-ancestors 'none'",
            "base-uri 'self'",
            "form-action 'self'",
          ].join('; '),
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Cost management web console',
      defaultRootObject: 'index.html',
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // The files are small and not content-hashed: always revalidated (Cache-Control below).
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
        compress: true,
      },
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;

    // Message images: private like the files, read through the same distribution (no credential;
    // each name is 32 random bytes), written by the notify worker only, gone after a year.
    this.messageImages = privateBucket(this, 'MessageImages', {
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: `${MESSAGE_IMAGES_PREFIX}/`,
      lifecycleRules: [{ id: 'ExpireMessageImages', expiration: Duration.days(MESSAGE_IMAGE_DAYS) }],
      removalPolicy: props.logRemovalPolicy,
    });
    this.distribution.addBehavior(
      `/${MESSAGE_IMAGES_PREFIX}/*`,
      S3BucketOrigin.withOriginAccessControl(this.messageImages),
      {
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
      },
    );
    this.messageImagesUrl = `${this.origin}/${MESSAGE_IMAGES_PREFIX}`;
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'The console is a static page for the organisation’s people wherever they are; every request it makes is authenticated by the API.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Static files only (no forms, no server logic behind CloudFront); the API it calls has its own throttling and per-route credential checks.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Static files only; standard logging needs an ACL-enabled bucket, and the access-log bucket enforces bucket-owner object ownership. S3 server access logs of the origin are kept.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The default *.cloudfront.net certificate is used (no custom domain configured): CloudFront then allows TLSv1 at the viewer; TLSv1.2_2021 is set for when a certificate is added.',
      },
    );

    // One log group for CDK's two helper functions, kept like the service's (stage retention).
    const logGroup = new LogGroup(this, 'DeployLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });

    // The page, its bundle and stylesheet (bundled at synth with esbuild), and config.json.
    const deployment = new BucketDeployment(this, 'Deploy', {
      destinationBucket: this.bucket,
      sources: [
        Source.asset(CONSOLE_DIR, {
          exclude: ['dist', 'dist/**'],
          bundling: {
            // Bundled in this process; the image is only CDK's fallback and is never pulled.
            image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-slim'),
            local: {
              tryBundle(outputDir: string) {
                writeConsoleSync(outputDir);
                return true;
              },
            },
          },
        }),
        Source.jsonData('config.json', {
          apiBaseUrl: props.apiUrl,
          ...(props.oidc ? { oidc: props.oidc } : {}),
        }),
      ],
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      prune: true,
      memoryLimit: 256,
      logGroup,
    });
    acknowledgeCustomResourceFunction(deployment);
    // CDK's grants to the deployment function: read its asset, write and prune this bucket's keys.
    const filesArn = `<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/*`;
    for (const c of Stack.of(this).node.children)
      if (c.node.id.startsWith('Custom::CDKBucketDeployment'))
        Validations.of(c).acknowledge(
          ...[
            'Action::s3:GetObject*',
            'Action::s3:GetBucket*',
            'Action::s3:List*',
            'Action::s3:DeleteObject*',
            'Action::s3:Abort*',
            'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
            `Resource::${filesArn}`,
            'Resource::*',
          ].map((finding) => ({
            id: `AwsSolutions-IAM5[${finding}]`,
            reason:
              'CDK’s BucketDeployment function: reads its own asset from the bootstrap bucket and writes/prunes every key of the console bucket (object keys need a wildcard); Resource::* is its CloudFront invalidation.',
          })),
        );

    // CORS for the console's origin only, once the API and the distribution exist.
    const apiArn = `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/apis/${props.api.apiId}`;
    const cors = {
      AllowOrigins: [this.origin],
      AllowMethods: CONSOLE_CORS_METHODS,
      AllowHeaders: CONSOLE_CORS_HEADERS,
      ExposeHeaders: ['etag'],
      MaxAge: 600,
    };
    const corsUpdate = new AwsCustomResource(this, 'ApiCors', {
      onCreate: {
        service: 'ApiGatewayV2',
        action: 'UpdateApi',
        parameters: { ApiId: props.api.apiId, CorsConfiguration: cors },
        physicalResourceId: PhysicalResourceId.of(`${props.api.apiId}-console-cors`),
      },
      onUpdate: {
        service: 'ApiGatewayV2',
        action: 'UpdateApi',
        parameters: { ApiId: props.api.apiId, CorsConfiguration: cors },
        physicalResourceId: PhysicalResourceId.of(`${props.api.apiId}-console-cors`),
      },
      onDelete: {
        service: 'ApiGatewayV2',
        action: 'DeleteCorsConfiguration',
        parameters: { ApiId: props.api.apiId },
      },
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ['apigateway:PATCH'], resources: [apiArn] }),
        new PolicyStatement({ actions: ['apigateway:DELETE'], resources: [`${apiArn}/cors`] }),
      ]),
      installLatestAwsSdk: false,
      logGroup,
    });
    acknowledgeCustomResourceFunction(corsUpdate);
  }
}

/** cdk-nag acknowledgements for the functions CDK provides behind a BucketDeployment or AwsCustomResource. */
function acknowledgeCustomResourceFunction(scope: Construct): void {
  for (const c of Stack.of(scope).node.children) {
    const id = c.node.id;
    if (
      !(id.startsWith('Custom::CDKBucketDeployment') || id.startsWith('AWS679f53fac002430cb0da5b7982bd2287'))
    )
      continue;
    Validations.of(c).acknowledge(...CUSTOM_RESOURCE_ACKS);
  }
  Validations.of(scope).acknowledge(...CUSTOM_RESOURCE_ACKS);
}

const CUSTOM_RESOURCE_ACKS = [
  {
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason:
      'CDK’s own deployment function (BucketDeployment / AwsCustomResource) runs with AWSLambdaBasicExecutionRole for its logs.',
  },
  {
    id: 'AwsSolutions-IAM5',
    reason:
      'CDK’s BucketDeployment reads its asset and writes every key of the console bucket (object ARNs need a wildcard).',
  },
  {
    id: 'AwsSolutions-L1',
    reason: 'The runtime of CDK’s provider functions is chosen by aws-cdk-lib and moves with its upgrades.',
  },
  {
    id: 'Serverless-LambdaDLQ',
    reason:
      'Invoked synchronously by CloudFormation as a custom resource: failures go back to the deployment, a DLQ would stay empty.',
  },
  {
    id: 'Serverless-LambdaTracing',
    reason:
      'CDK’s provider function runs once per deployment; X-Ray tracing it tells nothing about the service.',
  },
  {
    id: 'Serverless-LambdaDefaultMemorySize',
    reason:
      'CDK’s provider function: its memory is set by aws-cdk-lib (BucketDeployment’s memoryLimit is set to 256 MB).',
  },
  {
    id: 'Serverless-LambdaLatestVersion',
    reason: 'The runtime of CDK’s provider functions is chosen by aws-cdk-lib and moves with its upgrades.',
  },
];
