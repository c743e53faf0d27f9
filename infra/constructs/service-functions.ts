import { type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { MESSAGE_IMAGES_PREFIX } from '../../shared/cloud/message-images';
import { tableDefinition } from '../../shared/db/keys';
import type { DeployConfig } from './deploy-config';
import { ServiceFunction, type TableAccess } from './service-function';
import { renderedAttribute, type Warehouse } from './warehouse';
import { queueUrlVariable, type WorkQueues } from './work-queues';

/** What a function is granted beyond its logs: table access, queues, warehouse, mail, secrets. */
export interface FunctionNeeds {
  table: TableAccess;
  sendsTo?: readonly string[];
  warehouse?: 'query' | 'ingest';
  sendsEmail?: boolean;
  readsSlackToken?: boolean;
  /** Opens DuckDB in AWS: x86_64, DuckDB installed beside the bundle (ServiceFunction). */
  duckDb?: boolean;
  /** Calls the IdP invitation API: its base URL and read access to its token secret. */
  invitesUsers?: boolean;
  /** Renders chart PNGs and PDFs: fonts and resvg's wasm beside the bundle (ServiceFunction). */
  rendersCharts?: boolean;
  /** Publishes the images a Teams card shows by URL: writes to the message-images bucket. */
  publishesMessageImages?: boolean;
}

export interface FunctionOptions {
  entry: string;
  description: string;
  memoryMb?: number;
  timeoutSeconds?: number;
  deadLetterQueue?: Queue;
  needs: FunctionNeeds;
}

export interface ServiceFunctionsProps {
  config: DeployConfig;
  table: TableV2;
  workQueues: WorkQueues;
  warehouse: Warehouse;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  /** Where message images are published and the base URL they are read from (ConsoleHosting). */
  messageImages?: { bucket: IBucket; url: string };
}

/**
 * Makes every function of the service (routes, workers, schedules) the same way: the shared
 * environment, log settings, and the grants its `FunctionNeeds` name. The secrets it grants are
 * imported once, in the scope given (the stack), under the ids `SlackBotToken`, `IdpApiToken` and
 * `ApiKeyIntrospectionSecret`.
 */
export class ServiceFunctions {
  private readonly environment: Record<string, string>;
  private readonly slackToken: ISecret;
  private readonly idpToken: ISecret | undefined;
  private readonly introspectionSecret: ISecret | undefined;

  constructor(
    scope: Construct,
    private readonly props: ServiceFunctionsProps,
  ) {
    const { config } = props;
    this.slackToken = Secret.fromSecretNameV2(scope, 'SlackBotToken', config.slackTokenSecretName);
    this.idpToken = config.idpTokenSecretName
      ? Secret.fromSecretNameV2(scope, 'IdpApiToken', config.idpTokenSecretName)
      : undefined;
    this.introspectionSecret = config.apiKeyIntrospectionSecretName
      ? Secret.fromSecretNameV2(scope, 'ApiKeyIntrospectionSecret', config.apiKeyIntrospectionSecretName)
      : undefined;
    this.environment = {
      STAGE: config.stage,
      TABLE_NAME: props.table.tableName,
      JWT_ISSUER: config.jwtIssuer,
      JWT_AUDIENCE: config.jwtAudience,
      JWKS_URI: config.jwksUri,
      JWT_ORG_CLAIM: config.jwtOrgClaim,
      JWT_ROLE_CLAIM: config.jwtRoleClaim,
      SLACK_API_BASE_URL: config.slackApiBaseUrl,
      TEAMS_ALLOWED_HOSTS: config.teamsAllowedHosts,
      MAIL_FROM: config.mailFrom,
      APP_BASE_URL: config.appBaseUrl,
      FX_RATES_URL: config.fxRatesUrl,
      ...(config.platformOrgIds ? { PLATFORM_ORG_IDS: config.platformOrgIds } : {}),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
  }

  /** A function in `scope` with the grants its `needs` name. */
  create(scope: Construct, id: string, opts: FunctionOptions): ServiceFunction {
    const { table, workQueues, warehouse, config } = this.props;
    const fn = new ServiceFunction(scope, id, {
      entry: opts.entry,
      description: opts.description,
      memoryMb: opts.memoryMb,
      timeoutSeconds: opts.timeoutSeconds,
      environment: { ...this.environment },
      logRetention: this.props.logRetention,
      logRemovalPolicy: this.props.logRemovalPolicy,
      deadLetterQueue: opts.deadLetterQueue,
      needsDuckDb: opts.needs.duckDb,
      rendersCharts: opts.needs.rendersCharts,
    });
    const { needs } = opts;
    fn.grantTable(
      table,
      tableDefinition.indexes.map((index) => index.name),
      needs.table,
    );
    for (const name of new Set(needs.sendsTo ?? [])) {
      const queue = workQueues.queue(name);
      queue.grantSendMessages(fn.role);
      fn.addEnvironment(queueUrlVariable(name), queue.queueUrl);
    }
    if (needs.warehouse) warehouse.grantTo(fn, needs.warehouse);
    if (needs.sendsEmail) {
      fn.role.addToPolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [
            Stack.of(table).formatArn({
              service: 'ses',
              resource: 'identity',
              resourceName: config.sesIdentity,
            }),
          ],
        }),
      );
    }
    if (needs.readsSlackToken) {
      this.slackToken.grantRead(fn.role);
      fn.addEnvironment('SLACK_TOKEN_SECRET_ARN', this.slackToken.secretArn);
    }
    if (needs.publishesMessageImages && this.props.messageImages) {
      const { bucket, url } = this.props.messageImages;
      // Put only (no read, list or delete), under the prefix the distribution serves.
      fn.role.addToPolicy(
        new PolicyStatement({
          actions: ['s3:PutObject'],
          resources: [bucket.arnForObjects(`${MESSAGE_IMAGES_PREFIX}/*`)],
        }),
      );
      const arn = renderedAttribute(fn.role, bucket.node.defaultChild as CfnBucket, 'Arn');
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${arn}>/${MESSAGE_IMAGES_PREFIX}/*]`,
        reason:
          'Each message image is published under a new random name at run time, so the grant names the ' +
          'prefix; it allows PutObject only, under that prefix of that bucket.',
      });
      fn.addEnvironment('MESSAGE_IMAGES_BUCKET', bucket.bucketName);
      fn.addEnvironment('MESSAGE_IMAGES_URL', url);
    }
    if (needs.invitesUsers && config.idpApiBaseUrl) {
      fn.addEnvironment('IDP_API_BASE_URL', config.idpApiBaseUrl);
      if (this.idpToken) {
        this.idpToken.grantRead(fn.role);
        fn.addEnvironment('IDP_API_TOKEN_SECRET_ARN', this.idpToken.secretArn);
      }
    }
    return fn;
  }

  /**
   * Every route verifies its credential, so every route function may ask the identity provider
   * about an `ak_` key that is not ours (docs/auth.md#api-keys-from-the-identity-provider): the
   * introspection endpoint, client id and cache time, and read access to the client secret.
   */
  acceptIdpApiKeys(fn: ServiceFunction): void {
    const c = this.props.config;
    if (!c.apiKeyIntrospectionUrl) return;
    fn.addEnvironment('API_KEY_INTROSPECTION_URL', c.apiKeyIntrospectionUrl);
    if (c.apiKeyIntrospectionClientId)
      fn.addEnvironment('API_KEY_INTROSPECTION_CLIENT_ID', c.apiKeyIntrospectionClientId);
    if (c.apiKeyIntrospectionCacheSeconds !== undefined)
      fn.addEnvironment('API_KEY_INTROSPECTION_CACHE_SECONDS', c.apiKeyIntrospectionCacheSeconds);
    if (this.introspectionSecret) {
      this.introspectionSecret.grantRead(fn.role);
      fn.addEnvironment('API_KEY_INTROSPECTION_SECRET_ARN', this.introspectionSecret.secretArn);
    }
  }
}
