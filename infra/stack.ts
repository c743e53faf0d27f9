import { type App, CfnOutput, NestedStack, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
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
import { ConsoleHosting, type ConsoleHostingProps } from './constructs/console-hosting';
import type { DeployConfig } from './constructs/deploy-config';
import { serviceHttpApi } from './constructs/http-api';
import { Jobs } from './constructs/jobs';
import { RouteArea, routesByArea } from './constructs/route-area';
import type { ServiceFunction } from './constructs/service-function';
import { ServiceFunctions } from './constructs/service-functions';
import { serviceTable } from './constructs/service-table';
import { Warehouse } from './constructs/warehouse';
import { WorkQueues } from './constructs/work-queues';

/** The queue S3 announces new billing uploads to; the warehouse needs it in the manifest. */
export const BILLING_INGEST_QUEUE = 'billing-ingest';

/** CloudFormation's limit of resources in one template (the parent's and each nested stack's). */
export const CLOUDFORMATION_RESOURCE_LIMIT = 500;

export interface CostManagementStackProps extends StackProps {
  config: DeployConfig;
  /** The manifests; default to the real ones. Tests pass samples. */
  routes?: readonly RouteDef[];
  queues?: readonly QueueDef[];
  workers?: readonly WorkerDef[];
  schedules?: readonly ScheduleDef[];
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

/**
 * The service: the single table (./constructs/service-table.ts), the HTTP API (./constructs/http-api.ts;
 * each route verifies its credential), the queues with their DLQs (./constructs/work-queues.ts) and
 * the Athena warehouse (./constructs/warehouse.ts) in this stack; one nested stack per route area
 * (./constructs/route-area.ts: one function, integration and route per manifest route), one for the
 * workers and EventBridge schedules (./constructs/jobs.ts) and one for the web console. Every
 * function is made by `ServiceFunctions` (./constructs/service-functions.ts). The constructs create
 * their resources under the ids they always had, so the stateful ones keep their logical ids.
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
  readonly workerFunctions: ReadonlyMap<string, ServiceFunction>;
  readonly scheduleFunctions: ReadonlyMap<string, ServiceFunction>;
  /** The nested stack of each route area (`routeArea`). */
  readonly routeAreas = new Map<string, NestedStack>();
  /** The nested stack of the workers and schedules (absent when the manifest has neither). */
  readonly jobs: NestedStack | undefined;

  constructor(scope: Construct, id: string, props: CostManagementStackProps) {
    super(scope, id, props);
    const { config } = props;
    const prod = config.stage === 'prod';
    const logRetention = prod ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS;
    const logRemovalPolicy = prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    Tags.of(this).add('service', 'cost-management');
    Tags.of(this).add('stage', config.stage);

    this.table = serviceTable(this, prod);
    this.workQueues = new WorkQueues(this, 'Queues', { queues: props.queues ?? manifestQueues });
    this.alarms = new ServiceAlarms(this, 'Alarms', { stage: config.stage, email: config.alarmEmail });
    this.alarmQueues();
    if (!this.workQueues.has(BILLING_INGEST_QUEUE)) {
      throw new Error(`shared/queues.ts must declare the ${BILLING_INGEST_QUEUE} queue (billing uploads)`);
    }
    this.warehouse = new Warehouse(this, 'Warehouse', {
      stage: config.stage,
      ingestQueue: this.workQueues.queue(BILLING_INGEST_QUEUE),
    });
    ({ api: this.api, stage: this.stage } = serviceHttpApi(this, {
      config,
      alarms: this.alarms,
      logRetention,
      logRemovalPolicy,
    }));

    // In a nested stack of its own: its bucket, distribution and CDK's deployment functions stay
    // out of the parent's resource budget, and the parent keeps no function.
    this.console = new ConsoleHosting(new NestedStack(this, 'WebConsole'), 'Console', {
      api: this.api,
      apiUrl: this.stage.url,
      accessLogsBucket: this.warehouse.accessLogsBucket,
      logRetention,
      logRemovalPolicy,
      ...consoleOidc(config),
    });
    const functions = new ServiceFunctions(this, {
      config,
      table: this.table,
      workQueues: this.workQueues,
      warehouse: this.warehouse,
      logRetention,
      logRemovalPolicy,
      messageImages: { bucket: this.console.messageImages, url: this.console.messageImagesUrl },
    });

    for (const [area, routes] of routesByArea(props.routes ?? manifestRoutes)) {
      const common = {
        stage: config.stage,
        api: this.api,
        table: this.table,
        functions,
        alarms: this.alarms,
      };
      const nested = new RouteArea(this, { ...common, area, routes });
      this.routeAreas.set(area, nested);
      for (const [routeId, fn] of nested.functions) this.routeFunctions.set(routeId, fn);
    }

    const workers = props.workers ?? manifestWorkers;
    const schedules = props.schedules ?? manifestSchedules;
    const jobs =
      workers.length > 0 || schedules.length > 0
        ? new Jobs(this, {
            stage: config.stage,
            workers,
            schedules,
            workQueues: this.workQueues,
            functions,
            alarms: this.alarms,
          })
        : undefined;
    this.jobs = jobs;
    this.workerFunctions = jobs?.workerFunctions ?? new Map();
    this.scheduleFunctions = jobs?.scheduleFunctions ?? new Map();

    this.outputs();
  }

  /** Per queue: an alarm when its DLQ holds a message, and one when its oldest message is too old. */
  private alarmQueues(): void {
    for (const name of this.workQueues.names()) {
      const def = this.workQueues.definition(name);
      this.alarms.queueNotEmpty(this, `Alarm-${name}-DLQ`, this.workQueues.dlq(name), `The DLQ of ${name}`);
      // Older than twice the time a message may stay hidden, or 15 minutes: the worker is behind.
      const age = Math.max(900, 2 * def.visibilityTimeoutSeconds);
      this.alarms.oldestMessage(this, `Alarm-${name}-Age`, this.workQueues.queue(name), `queue ${name}`, age);
    }
  }

  private outputs(): void {
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
}

/** The console's sign-in settings, when the deployment names an OIDC issuer and client. */
function consoleOidc(config: DeployConfig): Pick<ConsoleHostingProps, 'oidc'> {
  if (!config.consoleOidcIssuer || !config.consoleOidcClientId) return {};
  return {
    oidc: {
      issuer: config.consoleOidcIssuer,
      clientId: config.consoleOidcClientId,
      ...(config.consoleOidcAuthorizationEndpoint
        ? { authorizationEndpoint: config.consoleOidcAuthorizationEndpoint }
        : {}),
      ...(config.consoleOidcTokenEndpoint ? { tokenEndpoint: config.consoleOidcTokenEndpoint } : {}),
    },
  };
}
