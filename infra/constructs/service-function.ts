import { join } from 'node:path';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  chartAliasArgs,
  chartAssetCommands,
  DUCKDB_BINDING_FILE,
  DUCKDB_NODE_MODULES,
  DUCKDB_PLATFORM,
  ESM_REQUIRE_BANNER,
  EXTERNAL_MODULES,
  isSplitEntry,
  LAMBDA_TARGET,
  splitBundlingCommand,
} from '../bundling';

export const PROJECT_ROOT = join(__dirname, '..', '..');

export const DEFAULT_MEMORY_MB = 256;
export const DEFAULT_TIMEOUT_SECONDS = 10;

export type TableAccess = 'read' | 'readwrite';

const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

export interface ServiceFunctionProps {
  /** Entry module, relative to the project root: `functions/http/reports/get-report.ts`. */
  entry: string;
  description: string;
  memoryMb?: number;
  timeoutSeconds?: number;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  /** Removal policy of the function's log group. */
  logRemovalPolicy: RemovalPolicy;
  /** Dead-letter queue for asynchronous invocations (schedules); HTTP and SQS invocations have none. */
  deadLetterQueue?: IQueue;
  /**
   * Opens DuckDB at run time in AWS (`needsDuckDb` of a worker): the function runs on x86_64 and
   * its asset carries `@duckdb/node-api` with the linux-x64 binding, installed at synth.
   */
  needsDuckDb?: boolean;
  /** Renders chart PNGs and PDFs: the fonts and resvg's wasm are copied beside the bundle. */
  rendersCharts?: boolean;
}

/**
 * The house Lambda: every function of the service is one of these, so the defaults are set on
 * purpose in one place: Node.js 22 on arm64, explicit memory and timeout, an own log group with
 * retention, active X-Ray tracing, the shared esbuild settings (ESM, minified, SDK bundled) and a
 * role that starts empty. Grants are added per function by the stack (least privilege).
 *
 * The one exception is a function with `needsDuckDb`: x86_64, with DuckDB installed beside its
 * bundle (see `duckDbBundling`). No other function ships DuckDB, and none imports it at load.
 */
export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /** The entry module, relative to the project root. */
  readonly entry: string;
  readonly architecture: Architecture;
  /** Packages installed into the asset next to the bundle (`bundling.nodeModules`). */
  readonly nodeModules: readonly string[];

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.entry = props.entry;
    const duckDb = props.needsDuckDb === true;
    this.architecture = duckDb ? Architecture.X86_64 : Architecture.ARM_64;
    this.nodeModules = duckDb ? [...DUCKDB_NODE_MODULES] : [];
    const memorySize = props.memoryMb ?? DEFAULT_MEMORY_MB;
    const timeoutSeconds = props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    if (!Number.isInteger(memorySize) || memorySize < 128 || memorySize > 10_240) {
      throw new Error(
        `${props.entry}: memory must be an integer between 128 and 10240 MB, got ${memorySize}`,
      );
    }
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 900) {
      throw new Error(`${props.entry}: timeout must be 1–900 s, got ${timeoutSeconds}`);
    }

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });

    // An own role instead of the AWSLambdaBasicExecutionRole managed policy: logs go to this
    // function's group only.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.entry}`,
    });
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    this.role.addManagedPolicy(xrayWritePolicy(this));

    this.fn = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: this.architecture,
      memorySize,
      timeout: Duration.seconds(timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      // DuckDB wants a writable home directory; a Lambda has none unless told (/tmp is writable).
      environment: duckDb ? { ...props.environment, HOME: '/tmp' } : props.environment,
      deadLetterQueue: props.deadLetterQueue,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      projectRoot: PROJECT_ROOT,
      bundling: {
        format: OutputFormat.ESM,
        target: LAMBDA_TARGET,
        minify: true,
        sourceMap: false,
        bundleAwsSDK: true,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        // Native/run-time-loaded packages stay out of the bundle, and out of the asset too unless
        // the function opens DuckDB in AWS (billing ingestion stages uploads in it).
        externalModules: [...EXTERNAL_MODULES],
        forceDockerBundling: false,
        logLevel: LogLevel.ERROR,
        esbuildArgs: {
          '--legal-comments': 'none',
          ...(props.rendersCharts && !duckDb ? chartAliasArgs(PROJECT_ROOT) : {}),
        },
        ...(duckDb ? duckDbBundling() : {}),
        ...afterBundling(props.entry, props.rendersCharts === true && !duckDb, duckDb),
      },
    });
    // Tracing is set on the L1 resource so that CDK does not add an `xray:*` on `*` statement to
    // every role; the permission comes once from the shared, acknowledged managed policy.
    (this.fn.node.defaultChild as CfnFunction).tracingConfig = { mode: 'Active' };

    const runtimeReason =
      'nodejs22.x is the runtime this service targets: bundles are built for node22 and the ' +
      'code is tested on Node 20/22. Moving to a newer runtime is a one-line change here once tested.';
    Validations.of(this.fn).acknowledge(
      { id: 'AwsSolutions-L1', reason: runtimeReason },
      { id: 'Serverless-LambdaLatestVersion', reason: runtimeReason },
    );
  }

  /** Table access on the table and its named indexes only (no `index/*`, no Scan). */
  grantTable(table: ITableV2, indexNames: readonly string[], access: TableAccess): void {
    const actions = access === 'read' ? TABLE_READ_ACTIONS : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS];
    this.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions,
        resources: [table.tableArn, ...indexNames.map((name) => `${table.tableArn}/index/${name}`)],
      }),
    );
  }

  /**
   * `UpdateItem` limited to setting the named attributes (fine-grained access control): the
   * request may touch only the key attributes and these, and may not return whole items.
   */
  grantAttributeUpdate(
    table: ITableV2,
    keyAttributes: readonly string[],
    attributes: readonly string[],
    /** Only items whose partition key matches one of these (`dynamodb:LeadingKeys`, wildcards). */
    partitions?: readonly string[],
  ): void {
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...keyAttributes, ...attributes] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
          ...(partitions ? { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } } : {}),
        },
      }),
    );
  }

  /** Adds an environment variable (e.g. a queue URL for a send grant). */
  addEnvironment(name: string, value: string): void {
    this.fn.addEnvironment(name, value);
  }
}

/**
 * What runs after CDK's own single-file esbuild run (and after the install of `nodeModules`), in
 * one `commandHooks` (a second would replace the first): for a function built with code splitting
 * (`isSplitEntry` of infra/bundling.ts), the same build with splitting (and the chart aliases)
 * replaces `index.mjs` and adds its chunks; for a function that renders charts, the fonts and
 * resvg's wasm are copied into `assets/`; for one that opens DuckDB, a check that its binding was
 * installed (`duckDbBundling`).
 */
function afterBundling(
  entry: string,
  rendersCharts: boolean,
  duckDb: boolean,
): Pick<BundlingOptions, 'commandHooks'> {
  const split = isSplitEntry(entry);
  if (!split && !rendersCharts && !duckDb) return {};
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        ...(split
          ? [
              splitBundlingCommand(
                join(inputDir, entry),
                outputDir,
                rendersCharts ? chartAliasArgs(PROJECT_ROOT) : {},
              ),
            ]
          : []),
        ...(rendersCharts ? chartAssetCommands(inputDir, outputDir) : []),
        ...(duckDb ? [duckDbBindingCheck(outputDir)] : []),
      ],
    },
  };
}

/**
 * DuckDB beside the bundle: `bundling.nodeModules` makes CDK write a package.json naming
 * `@duckdb/node-api` at the version of ours, copy package-lock.json and run `npm ci` in the asset
 * folder. The npm platform settings make that install the linux-x64 glibc binding whatever the
 * machine that synthesises (a Mac would otherwise install its own); `prefer-offline` takes the
 * packages from the npm cache when they are there. `duckDbBindingCheck`, run after the install, fails synth if the binding is
 * missing, rather than deploying a function that fails at its first upload.
 */
function duckDbBundling(): Pick<BundlingOptions, 'nodeModules' | 'environment'> {
  return {
    nodeModules: [...DUCKDB_NODE_MODULES],
    environment: {
      npm_config_os: DUCKDB_PLATFORM.os,
      npm_config_cpu: DUCKDB_PLATFORM.cpu,
      npm_config_libc: DUCKDB_PLATFORM.libc,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    },
  };
}

/** Fails synth when the DuckDB binding is missing from the asset (see `duckDbBundling`). */
function duckDbBindingCheck(outputDir: string): string {
  return `test -f "${outputDir}/${DUCKDB_BINDING_FILE}" || { echo "DuckDB binding ${DUCKDB_BINDING_FILE} was not installed in ${outputDir}" >&2; exit 1; }`;
}

/** One customer-managed policy per stack for X-Ray writes, shared by every function role. */
function xrayWritePolicy(scope: Construct): ManagedPolicy {
  const stack = Stack.of(scope);
  const id = 'XRayWritePolicy';
  const existing = stack.node.tryFindChild(id);
  if (existing) return existing as ManagedPolicy;
  const policy = new ManagedPolicy(stack, id, {
    description: 'Lets the service functions send X-Ray trace segments',
    statements: [
      new PolicyStatement({
        actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
        resources: ['*'],
      }),
    ],
  });
  Validations.of(policy).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions; ' +
      'this is the only wildcard and it grants trace writes only.',
  });
  return policy;
}
