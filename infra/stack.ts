import {
  type App,
  CfnOutput,
  Duration,
  NestedStack,
  RemovalPolicy,
  Stack,
  type StackProps,
  Tags,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  type HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '../shared/db/keys';
import { ORGANIZATION_ATTRIBUTES } from '../shared/db/organizations-repo';
import type { RouteDef } from '../shared/http/route';
import {
  queues as manifestQueues,
  schedules as manifestSchedules,
  workers as manifestWorkers,
  type QueueDef,
  type ScheduleDef,
  type WorkerDef,
} from '../shared/queues';
import { routes as manifestRoutes } from '../shared/routes';
import { ServiceAlarms } from './constructs/alarms';
import { ConsoleHosting } from './constructs/console-hosting';
import type { DeployConfig } from './constructs/deploy-config';
import { DEFAULT_TIMEOUT_SECONDS, ServiceFunction, type TableAccess } from './constructs/service-function';
import { Warehouse } from './constructs/warehouse';
import { queueUrlVariable, WorkQueues } from './constructs/work-queues';

/** The queue S3 announces new billing uploads to; the warehouse needs it in the manifest. */
export const BILLING_INGEST_QUEUE = 'billing-ingest';

/**
 * The only attribute a read-only (GET) route writes: when an API key was last used (at most hourly,
 * `recordApiKeyUse`), since every route verifies its request's credential itself.
 */
export const API_KEY_LAST_USED_ATTRIBUTE = 'lastUsedAt';
/**
 * How long the HTTP API waits for a route's function (29 s, the most CDK accepts for an HTTP API). No route
 * function may run longer: the caller would get a 503 while the function runs on. Work that can
 * take longer goes to a queue, and the route answers with something to poll.
 */
export const INTEGRATION_TIMEOUT = Duration.seconds(29);
/** CloudFormation's limit of resources in one template (the parent's and each nested stack's). */
export const CLOUDFORMATION_RESOURCE_LIMIT = 500;

/**
 * The area of a route: the folder of its handler under `functions/http/` (`admin/sync-team` →
 * `admin`). Each area's functions, integrations and routes live in a nested stack of their own, so
 * the resource count of one template grows with one area, not with the whole API.
 */
export function routeArea(def: Pick<RouteDef, 'entry'>): string {
  const folder = def.entry.split('/').find((part) => part !== '.' && part !== '..') ?? '';
  const words = folder.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (words.length === 0) throw new Error(`Route entry ${def.entry} has no area folder`);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function groupByArea(routes: readonly RouteDef[]): Map<string, RouteDef[]> {
  const out = new Map<string, RouteDef[]>();
  for (const def of routes) {
    const area = routeArea(def);
    out.set(area, [...(out.get(area) ?? []), def]);
  }
  return out;
}

export interface CostManagementStackProps extends StackProps {
  config: DeployConfig;
  /** The manifests; default to the real ones. Tests pass samples. */
  routes?: readonly RouteDef[];
  queues?: readonly QueueDef[];
  workers?: readonly WorkerDef[];
  schedules?: readonly ScheduleDef[];
}

interface FunctionNeeds {
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
}

/**
 * The service stack as `cdk synth` builds it (infra/app.ts) and as the tests build it. It has no
 * `env`: account and region stay CloudFormation's own `AWS::AccountId` / `AWS::Region`, so the
 * template names no region and deploys wherever the deployer's credentials point.
 */
export function createServiceStack(
  app: App,
  config: DeployConfig,
  manifests: Pick<CostManagementStackProps, 'routes' | 'queues' | 'workers' | 'schedules'> = {},
): CostManagementStack {
  return new CostManagementStack(app, `CostManagement-${config.stage}`, {
    config,
    description: `Cost management service (${config.stage})`,
    terminationProtection: config.stage === 'prod',
    ...manifests,
  });
}

const ROUTE_AUTH_REASON =
  'Every route verifies the request’s credential itself, first thing (session JWT through aws-jwt-verify ' +
  'with a cached JWKS, or an ak_ API key by its hash), so that every refusal is the spec’s 401 {error}; ' +
  'a gateway authorizer would answer a missing header with its own 401 {message} (docs/security.md).';

const SYNC_INVOCATION_DLQ_REASON =
  'Invoked synchronously (API Gateway, or the SQS event source): a Lambda DLQ only receives failed ' +
  'asynchronous invocations, so it would stay empty. Failed SQS messages go to the queue’s own DLQ.';

/**
 * The service: the single table, the HTTP API (each route verifies its credential), the queues with their
 * DLQs and the Athena warehouse in this stack; one nested stack per route area (one function,
 * integration and route per manifest route) and one for the workers and EventBridge schedules.
 */
export class CostManagementStack extends Stack {
  readonly table: TableV2;
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly workQueues: WorkQueues;
  readonly warehouse: Warehouse;
  readonly alarms: ServiceAlarms;
  /** The web console: S3 + CloudFront (docs/console.md). */
  readonly console: ConsoleHosting;
  readonly routeFunctions = new Map<string, ServiceFunction>();
  readonly workerFunctions = new Map<string, ServiceFunction>();
  readonly scheduleFunctions = new Map<string, ServiceFunction>();
  /** The nested stack of each route area (`routeArea`). */
  readonly routeAreas = new Map<string, NestedStack>();
  /** The nested stack of the workers and schedules (absent when the manifest has neither). */
  readonly jobs: NestedStack | undefined;

  private readonly config: DeployConfig;
  private readonly baseEnvironment: Record<string, string>;
  private readonly logRetention: RetentionDays;
  private readonly logRemovalPolicy: RemovalPolicy;
  private readonly slackToken: ISecret;
  private readonly idpToken: ISecret | undefined;
  private readonly introspectionSecret: ISecret | undefined;

  constructor(scope: Construct, id: string, props: CostManagementStackProps) {
    super(scope, id, props);
    const { config } = props;
    const routes = props.routes ?? manifestRoutes;
    const queues = props.queues ?? manifestQueues;
    const workers = props.workers ?? manifestWorkers;
    const schedules = props.schedules ?? manifestSchedules;
    const prod = config.stage === 'prod';
    this.config = config;
    this.logRetention = prod ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS;
    this.logRemovalPolicy = prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    Tags.of(this).add('service', 'cost-management');
    Tags.of(this).add('stage', config.stage);

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      globalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      })),
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: prod,
      removalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.workQueues = new WorkQueues(this, 'Queues', { queues });
    this.alarms = new ServiceAlarms(this, 'Alarms', { stage: config.stage, email: config.alarmEmail });
    for (const name of this.workQueues.names()) {
      const def = this.workQueues.definition(name);
      this.alarms.queueNotEmpty(this, `Alarm-${name}-DLQ`, this.workQueues.dlq(name), `The DLQ of ${name}`);
      // Older than twice the time a message may stay hidden, or 15 minutes: the worker is behind.
      const age = Math.max(900, 2 * def.visibilityTimeoutSeconds);
      this.alarms.oldestMessage(this, `Alarm-${name}-Age`, this.workQueues.queue(name), `queue ${name}`, age);
    }
    if (!this.workQueues.has(BILLING_INGEST_QUEUE)) {
      throw new Error(`shared/queues.ts must declare the ${BILLING_INGEST_QUEUE} queue (billing uploads)`);
    }
    this.warehouse = new Warehouse(this, 'Warehouse', {
      stage: config.stage,
      ingestQueue: this.workQueues.queue(BILLING_INGEST_QUEUE),
    });

    this.slackToken = Secret.fromSecretNameV2(this, 'SlackBotToken', config.slackTokenSecretName);
    this.idpToken = config.idpTokenSecretName
      ? Secret.fromSecretNameV2(this, 'IdpApiToken', config.idpTokenSecretName)
      : undefined;
    this.introspectionSecret = config.apiKeyIntrospectionSecretName
      ? Secret.fromSecretNameV2(this, 'ApiKeyIntrospectionSecret', config.apiKeyIntrospectionSecretName)
      : undefined;

    this.baseEnvironment = {
      STAGE: config.stage,
      TABLE_NAME: this.table.tableName,
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

    // --- HTTP API -------------------------------------------------------------------------------
    // No gateway authorizer: each route verifies its request's credential first thing (the
    // `credential` middleware), so a missing header is the route's 401 {error} like any other bad
    // credential (an HTTP API authorizer with an identity source answers 401 {message} itself).
    this.api = new HttpApi(this, 'HttpApi', {
      apiName: `cost-management-${config.stage}`,
      description: 'Cost management service HTTP API',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: this.logRetention,
      removalPolicy: this.logRemovalPolicy,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.throttleRateLimit, burstLimit: config.throttleBurstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            routeKey: '$context.routeKey',
            path: '$context.path',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            responseLength: '$context.responseLength',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });
    Validations.of(this.stage).acknowledge({
      id: 'Serverless-APIGWXrayEnabled',
      reason:
        'HTTP APIs (API Gateway v2) do not support X-Ray tracing; every function behind it traces actively.',
    });

    this.alarms.api5xxRate(this, 'Alarm-Api5xxRate', this.api);

    // --- Web console ----------------------------------------------------------------------------
    // In a nested stack of its own: its bucket, distribution and CDK's deployment functions stay
    // out of the parent's resource budget, and the parent keeps no function.
    this.console = new ConsoleHosting(new NestedStack(this, 'WebConsole'), 'Console', {
      api: this.api,
      apiUrl: this.stage.url,
      accessLogsBucket: this.warehouse.accessLogsBucket,
      logRetention: this.logRetention,
      logRemovalPolicy: this.logRemovalPolicy,
      ...(config.consoleOidcIssuer && config.consoleOidcClientId
        ? {
            oidc: {
              issuer: config.consoleOidcIssuer,
              clientId: config.consoleOidcClientId,
              ...(config.consoleOidcAuthorizationEndpoint
                ? { authorizationEndpoint: config.consoleOidcAuthorizationEndpoint }
                : {}),
              ...(config.consoleOidcTokenEndpoint ? { tokenEndpoint: config.consoleOidcTokenEndpoint } : {}),
            },
          }
        : {}),
    });

    // --- Routes, one nested stack per area ----------------------------------------------------
    const seenRouteKeys = new Set<string>();
    const seenIds = new Set<string>();
    for (const def of routes) {
      const routeKey = `${def.method} ${def.path}`;
      if (seenRouteKeys.has(routeKey)) throw new Error(`Route ${routeKey} is declared twice`);
      if (seenIds.has(def.id)) throw new Error(`Route id ${def.id} is declared twice`);
      seenRouteKeys.add(routeKey);
      seenIds.add(def.id);
      const timeoutSeconds = def.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
      if (timeoutSeconds > INTEGRATION_TIMEOUT.toSeconds()) {
        throw new Error(
          `Route ${routeKey}: a ${timeoutSeconds} s timeout exceeds the HTTP API's ${INTEGRATION_TIMEOUT.toSeconds()} s ` +
            'integration timeout (the caller would get a 503 while the function runs on): hand long work to a queue',
        );
      }
    }
    for (const [area, areaRoutes] of groupByArea(routes)) {
      const nested = new NestedStack(this, `Routes-${area}`, {
        description: `Cost management service (${config.stage}): the ${area} routes`,
      });
      this.routeAreas.set(area, nested);
      for (const def of areaRoutes) {
        const routeKey = `${def.method} ${def.path}`;
        const fn = this.serviceFunction(nested, `Route-${def.id}`, {
          entry: `functions/http/${def.entry}.ts`,
          description: routeKey,
          memoryMb: def.memoryMb,
          timeoutSeconds: def.timeoutSeconds,
          needs: {
            table: def.method === 'GET' ? 'read' : 'readwrite',
            sendsTo: def.sendsTo,
            warehouse: def.usesWarehouse ? 'query' : undefined,
            invitesUsers: def.invitesUsers,
          },
        });
        Validations.of(fn).acknowledge({ id: 'Serverless-LambdaDLQ', reason: SYNC_INVOCATION_DLQ_REASON });
        this.acceptIdpApiKeys(fn);
        if (def.method === 'GET') {
          // A read-only route still records when an API key was last used, and writes nothing else.
          fn.grantAttributeUpdate(
            this.table,
            [tableDefinition.partitionKey, tableDefinition.sortKey],
            [API_KEY_LAST_USED_ATTRIBUTE],
          );
          // The first session JWT of an org admin registers its organisation (`registerOrganization`,
          // from the route's `credential` step): a conditional UpdateItem of that record's attributes.
          fn.grantAttributeUpdate(
            this.table,
            [tableDefinition.partitionKey, tableDefinition.sortKey],
            ORGANIZATION_ATTRIBUTES,
          );
        }
        const httpRoute = new HttpRoute(nested, `Route-${def.id}-Http`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(def.path, HttpMethod[def.method]),
          integration: new HttpLambdaIntegration(`Integration-${def.id}`, fn.fn, {
            timeout: INTEGRATION_TIMEOUT,
          }),
        });
        Validations.of(httpRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: ROUTE_AUTH_REASON });
        this.alarms.functionAlarm(nested, `Route-${def.id}-Alarm`, fn.fn, `Route ${routeKey}`);
        this.routeFunctions.set(def.id, fn);
      }
    }

    // --- Workers and schedules, in one nested stack ----------------------------------------------
    if (workers.length > 0 || schedules.length > 0) {
      this.jobs = new NestedStack(this, 'Jobs', {
        description: `Cost management service (${config.stage}): queue workers and schedules`,
      });
    }
    const jobs = this.jobs as NestedStack;
    for (const def of workers) {
      const queueDef = this.workQueues.definition(def.queue);
      if (queueDef.visibilityTimeoutSeconds < def.timeoutSeconds) {
        throw new Error(
          `Worker ${def.name}: queue ${def.queue} hides messages for ${queueDef.visibilityTimeoutSeconds} s, ` +
            `less than the worker's ${def.timeoutSeconds} s timeout (use at least 6× the timeout)`,
        );
      }
      const fn = this.serviceFunction(jobs, `Worker-${def.name}`, {
        entry: `functions/${def.entry}.ts`,
        description: `Worker ${def.name} (queue ${def.queue})`,
        memoryMb: def.memoryMb,
        timeoutSeconds: def.timeoutSeconds,
        needs: {
          table: 'readwrite',
          sendsTo: def.sendsTo,
          warehouse: def.usesWarehouse ? 'ingest' : undefined,
          sendsEmail: def.sendsEmail,
          readsSlackToken: def.sendsEmail === true || def.queue === 'notifications',
          duckDb: def.needsDuckDb,
          invitesUsers: def.invitesUsers,
          rendersCharts: def.rendersCharts,
        },
      });
      fn.fn.addEventSource(
        new SqsEventSource(this.workQueues.queue(def.queue), {
          batchSize: def.batchSize,
          reportBatchItemFailures: true,
          maxBatchingWindow: def.batchSize > 10 ? Duration.seconds(1) : undefined,
        }),
      );
      Validations.of(fn).acknowledge(
        { id: 'Serverless-LambdaDLQ', reason: SYNC_INVOCATION_DLQ_REASON },
        {
          id: 'Serverless-LambdaEventSourceMappingDestination',
          reason:
            'SQS event sources do not take an on-failure destination; a message that keeps failing moves ' +
            'to the queue’s dead-letter queue through its redrive policy (maxReceiveCount).',
        },
      );
      this.alarms.functionAlarm(jobs, `Worker-${def.name}-Alarm`, fn.fn, `Worker ${def.name}`);
      this.workerFunctions.set(def.name, fn);
    }

    if (schedules.length > 0) {
      const failures = new Queue(jobs, 'ScheduleFailures', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      const dlqReason =
        'This queue is itself a dead-letter queue: of the schedule rules’ targets and of the schedule ' +
        'functions’ asynchronous invocations.';
      this.alarms.queueNotEmpty(jobs, 'Alarm-ScheduleFailures', failures, 'The schedule failure queue');
      Validations.of(failures).acknowledge(
        { id: 'AwsSolutions-SQS3', reason: dlqReason },
        { id: 'Serverless-SQSRedrivePolicy', reason: dlqReason },
      );
      for (const def of schedules) {
        const fn = this.serviceFunction(jobs, `Schedule-${def.name}`, {
          entry: `functions/${def.entry}.ts`,
          description: `Schedule ${def.name} (${def.expression})`,
          timeoutSeconds: def.timeoutSeconds,
          deadLetterQueue: failures,
          needs: { table: 'readwrite', sendsTo: def.sendsTo },
        });
        new Rule(jobs, `Schedule-${def.name}-Rule`, {
          description: `Runs ${def.entry} on ${def.expression}`,
          schedule: Schedule.expression(def.expression),
          targets: [
            new LambdaFunction(fn.fn, {
              deadLetterQueue: failures,
              retryAttempts: 2,
              maxEventAge: Duration.hours(1),
            }),
          ],
        });
        this.alarms.functionAlarm(jobs, `Schedule-${def.name}-Alarm`, fn.fn, `Schedule ${def.name}`);
        this.scheduleFunctions.set(def.name, fn);
      }
    }

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'ConsoleUrl', {
      value: `${this.console.origin}/`,
      description: 'The web console (CloudFront); the API allows this origin only (CORS)',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'BillingBucketName', {
      value: this.warehouse.billingBucket.bucketName,
      description: `Upload FOCUS exports under s3://<bucket>/uploads/`,
    });
    new CfnOutput(this, 'AthenaWorkgroup', { value: this.warehouse.workgroupName });
  }

  /**
   * Every route verifies its credential, so every route function may ask the identity provider
   * about an `ak_` key that is not ours (docs/auth.md#api-keys-from-the-identity-provider): the
   * introspection endpoint, client id and cache time, and read access to the client secret.
   */
  private acceptIdpApiKeys(fn: ServiceFunction): void {
    const c = this.config;
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

  private serviceFunction(
    scope: Construct,
    id: string,
    opts: {
      entry: string;
      description: string;
      memoryMb?: number;
      timeoutSeconds?: number;
      deadLetterQueue?: Queue;
      needs: FunctionNeeds;
    },
  ): ServiceFunction {
    const fn = new ServiceFunction(scope, id, {
      entry: opts.entry,
      description: opts.description,
      memoryMb: opts.memoryMb,
      timeoutSeconds: opts.timeoutSeconds,
      environment: { ...this.baseEnvironment },
      logRetention: this.logRetention,
      logRemovalPolicy: this.logRemovalPolicy,
      deadLetterQueue: opts.deadLetterQueue,
      needsDuckDb: opts.needs.duckDb,
      rendersCharts: opts.needs.rendersCharts,
    });
    const { needs } = opts;
    fn.grantTable(
      this.table,
      tableDefinition.indexes.map((index) => index.name),
      needs.table,
    );
    for (const name of new Set(needs.sendsTo ?? [])) {
      const queue = this.workQueues.queue(name);
      queue.grantSendMessages(fn.role);
      fn.addEnvironment(queueUrlVariable(name), queue.queueUrl);
    }
    if (needs.warehouse) this.warehouse.grantTo(fn, needs.warehouse);
    if (needs.sendsEmail) {
      fn.role.addToPolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [
            this.formatArn({ service: 'ses', resource: 'identity', resourceName: this.config.sesIdentity }),
          ],
        }),
      );
    }
    if (needs.readsSlackToken) {
      this.slackToken.grantRead(fn.role);
      fn.addEnvironment('SLACK_TOKEN_SECRET_ARN', this.slackToken.secretArn);
    }
    if (needs.invitesUsers && this.config.idpApiBaseUrl) {
      fn.addEnvironment('IDP_API_BASE_URL', this.config.idpApiBaseUrl);
      if (this.idpToken) {
        this.idpToken.grantRead(fn.role);
        fn.addEnvironment('IDP_API_TOKEN_SECRET_ARN', this.idpToken.secretArn);
      }
    }
    return fn;
  }
}
