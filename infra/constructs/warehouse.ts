import {
  Aws,
  type CfnElement,
  Duration,
  Fn,
  Names,
  NestedStack,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type Bucket, type CfnBucket, EventType } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONTRACT_COMMITMENTS_PREFIX } from '../../shared/warehouse/athena/sql';
import { CONTRACT_COMMITMENT_TABLE_COLUMNS, glueColumns } from '../../shared/warehouse/focus-columns';
import { REPLACED_PREFIX, RESTORABLE_DAYS } from '../../shared/warehouse/ingest/replacements';
import type { DeployStage } from './deploy-config';
import { privateBucket } from './private-bucket';
import type { ServiceFunction } from './service-function';

/** Prefix the ingest pipeline receives raw exports under (S3 notifications fire for it). */
export const UPLOADS_PREFIX = 'uploads/';
/** Prefix of the curated Parquet: `curated/org_id=<org>/billing_month=<yyyy-MM>/*.parquet`. */
export const CURATED_PREFIX = 'curated/';
/** Prefix of Athena query results in the results bucket. */
export const RESULTS_PREFIX = 'athena/';

/** How Glue reads the curated Parquet objects. */
const PARQUET_STORAGE = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
};

/**
 * Table parameters of curated Parquet partitioned by organisation. Partition projection: no
 * crawler and no partition registration. `org_id` is injected, so Athena rejects any query that
 * does not name exactly the organisation it reads.
 */
const BY_ORGANISATION = {
  classification: 'parquet',
  'parquet.compression': 'ZSTD',
  'projection.enabled': 'true',
  'projection.org_id.type': 'injected',
};

/** Partition columns: `curated/org_id=<org>/billing_month=<yyyy-MM>/`. */
export const PARTITION_KEYS = ['org_id', 'billing_month'] as const;

export interface WarehouseProps {
  stage: DeployStage;
  /** The manifest's `billing-ingest` queue; new objects under `uploads/` are announced to it. */
  ingestQueue: Queue;
}

/**
 * The billing warehouse in AWS: raw exports land in the billing bucket under `uploads/` (each new
 * object is announced to the ingest queue), curated FOCUS Parquet sits under `curated/`
 * partitioned by org and month, Glue describes it, and Athena queries it in an enforced
 * workgroup whose results are encrypted and expire after a week.
 */
export class Warehouse extends Construct {
  readonly billingBucket: Bucket;
  readonly resultsBucket: Bucket;
  readonly accessLogsBucket: Bucket;
  readonly databaseName: string;
  readonly tableName = 'focus_billing';
  /** FOCUS 1.3's Contract Commitment dataset, one Parquet object per organisation and contract. */
  readonly contractCommitmentTableName = 'focus_contract_commitments';
  readonly workgroupName: string;

  constructor(scope: Construct, id: string, props: WarehouseProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Names that must be known before their resources exist carry the stack's own id, so a stack
    // deleted and created again (its retained bucket still there) never collides with the old one.
    const suffix = stackInstanceSuffix(stack);
    this.databaseName = `cost_management_${props.stage}_${suffix}`;
    this.workgroupName = `cost-management-${props.stage}-${suffix}`;
    this.accessLogsBucket = this.accessLogs();
    this.billingBucket = this.billing(props.ingestQueue, suffix);
    this.resultsBucket = this.results();
    this.catalog();
    this.workgroup(props.stage);
  }

  /** The server-access-log target of the other buckets. */
  private accessLogs(): Bucket {
    const bucket = privateBucket(this, 'AccessLogs', {
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket is the server-access-log target of the other buckets; logging it into itself would loop.',
    });
    return bucket;
  }

  /** The billing bucket: uploads announced to the ingest queue, versioned, curated Parquet. */
  private billing(ingestQueue: Queue, suffix: string): Bucket {
    const stack = Stack.of(this);

    // The name is fixed up front so the ingest queue's policy can name the bucket before the bucket
    // exists: S3 checks that it may send to the queue when the notification is created, and this
    // avoids both a dependency cycle and the notifications custom resource (a Python Lambda). It
    // ends in a part of the stack id, which is new each time the stack is created: the bucket is
    // retained on delete, and a stack created again gets a bucket of its own.
    const billingBucketName = [
      stack.stackName
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-')
        .slice(0, 63 - '-billing-'.length - STACK_SUFFIX_LENGTH),
      'billing',
      suffix,
    ].join('-');
    const billingBucketArn = stack.formatArn({
      service: 's3',
      region: '',
      account: '',
      resource: billingBucketName,
    });
    ingestQueue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowBillingBucketNotifications',
        principals: [new ServicePrincipal('s3.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [ingestQueue.queueArn],
        conditions: {
          ArnEquals: { 'aws:SourceArn': billingBucketArn },
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        },
      }),
    );

    const bucket = privateBucket(this, 'BillingBucket', {
      bucketName: billingBucketName,
      versioned: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'billing/',
      lifecycleRules: [
        { noncurrentVersionExpiration: Duration.days(30) },
        { abortIncompleteMultipartUploadAfter: Duration.days(7) },
        // Versions an upload replaced, restorable for RESTORABLE_DAYS (S3 rounds to midnight: +1 day).
        { prefix: REPLACED_PREFIX, expiration: Duration.days(RESTORABLE_DAYS + 1) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const cfnBilling = bucket.node.defaultChild as CfnBucket;
    cfnBilling.notificationConfiguration = {
      queueConfigurations: [
        {
          event: EventType.OBJECT_CREATED,
          queue: ingestQueue.queueArn,
          filter: { s3Key: { rules: [{ name: 'prefix', value: UPLOADS_PREFIX }] } },
        },
      ],
    };
    // The queue construct holds its policy, so the bucket is created after the policy allows S3.
    bucket.node.addDependency(ingestQueue);
    return bucket;
  }

  /** Athena's results: encrypted, kept a week. */
  private results(): Bucket {
    return privateBucket(this, 'AthenaResults', {
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'athena-results/',
      lifecycleRules: [
        { expiration: Duration.days(7) },
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** The Glue database and the FOCUS table over the curated Parquet (partition projection). */
  private catalog(): void {
    const database = new CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: {
        name: this.databaseName,
        description: 'Cost management: curated FOCUS billing data',
      },
    });

    this.parquetTable('FocusTable', database, {
      name: this.tableName,
      description: 'FOCUS 1.0 billing rows, Parquet, one partition per organisation and billing month',
      prefix: CURATED_PREFIX,
      partitionKeys: [...PARTITION_KEYS],
      projection: {
        'projection.billing_month.type': 'date',
        'projection.billing_month.format': 'yyyy-MM',
        'projection.billing_month.range': '2015-01,NOW',
        'projection.billing_month.interval': '1',
        'projection.billing_month.interval.unit': 'MONTHS',
      },
      // The one column list of the warehouse (shared/warehouse/focus-columns.ts), in the types
      // ingestion writes to Parquet, so the Glue table and the files cannot drift apart.
      columns: glueColumns(),
    });
    this.parquetTable('ContractCommitmentTable', database, {
      name: this.contractCommitmentTableName,
      description: 'FOCUS 1.3 Contract Commitment rows, Parquet, one partition per organisation',
      prefix: CONTRACT_COMMITMENTS_PREFIX,
      partitionKeys: ['org_id'],
      projection: {},
      columns: glueColumns(CONTRACT_COMMITMENT_TABLE_COLUMNS),
    });
  }

  /**
   * An external Glue table of the Parquet files under `t.prefix` of the billing bucket, partitioned
   * by `t.partitionKeys` (organisation first, its partitions projected), in `database`.
   */
  private parquetTable(
    id: string,
    database: CfnDatabase,
    t: {
      name: string;
      description: string;
      prefix: string;
      partitionKeys: string[];
      projection: Record<string, string>;
      columns: ReturnType<typeof glueColumns>;
    },
  ): CfnTable {
    const location = `s3://${this.billingBucket.bucketName}/${t.prefix}`;
    const partitions = t.partitionKeys.map((k) => `${k}=\${${k}}/`).join('');
    const table = new CfnTable(this, id, {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name: t.name,
        description: t.description,
        tableType: 'EXTERNAL_TABLE',
        parameters: {
          ...BY_ORGANISATION,
          ...t.projection,
          'storage.location.template': `${location}${partitions}`,
        },
        partitionKeys: t.partitionKeys.map((name) => ({ name, type: 'string' })),
        storageDescriptor: { location, ...PARQUET_STORAGE, columns: t.columns },
      },
    });
    table.addResourceDependency(database);
    return table;
  }

  /** The enforced Athena workgroup the functions query in. */
  private workgroup(stage: DeployStage): void {
    new CfnWorkGroup(this, 'Workgroup', {
      name: this.workgroupName,
      description: 'Cost management queries (enforced settings, encrypted results)',
      state: 'ENABLED',
      recursiveDeleteOption: stage !== 'prod',
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        // A guard against a runaway query: 10 GB is far above one org-month of curated Parquet.
        bytesScannedCutoffPerQuery: 10 * 1024 ** 3,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: `s3://${this.resultsBucket.bucketName}/${RESULTS_PREFIX}`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
  }

  /** Environment of a function that queries the warehouse. */
  environment(): Record<string, string> {
    return {
      WAREHOUSE: 'athena',
      ATHENA_WORKGROUP: this.workgroupName,
      GLUE_DATABASE: this.databaseName,
      GLUE_TABLE: this.tableName,
      BILLING_BUCKET: this.billingBucket.bucketName,
    };
  }

  /**
   * Query access (HTTP routes): run queries in the workgroup, read the catalog entry and the
   * curated objects, and read/write the workgroup's results. `ingest` adds what a worker needs to
   * turn uploads into curated Parquet: read `uploads/`, write and replace `curated/`.
   */
  grantTo(target: ServiceFunction, access: 'query' | 'ingest'): void {
    const stack = Stack.of(this);
    for (const [name, value] of Object.entries(this.environment())) target.addEnvironment(name, value);
    const workgroupArn = stack.formatArn({
      service: 'athena',
      resource: 'workgroup',
      resourceName: this.workgroupName,
    });
    target.role.addToPolicy(
      new PolicyStatement({
        actions: [
          'athena:StartQueryExecution',
          'athena:GetQueryExecution',
          'athena:GetQueryResults',
          'athena:StopQueryExecution',
          'athena:GetWorkGroup',
        ],
        resources: [workgroupArn],
      }),
    );
    target.role.addToPolicy(
      new PolicyStatement({
        actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartition', 'glue:GetPartitions'],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.databaseName }),
          stack.formatArn({
            service: 'glue',
            resource: 'table',
            resourceName: `${this.databaseName}/${this.tableName}`,
          }),
          // The Contract Commitment table, read by the same queries' functions.
          stack.formatArn({
            service: 'glue',
            resource: 'table',
            resourceName: `${this.databaseName}/${this.contractCommitmentTableName}`,
          }),
        ],
      }),
    );
    const billingArn = this.billingBucket.bucketArn;
    const resultsArn = this.resultsBucket.bucketArn;
    target.role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket', 's3:GetBucketLocation'],
        resources: [billingArn, resultsArn],
      }),
    );
    target.role.addToPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [`${billingArn}/${CURATED_PREFIX}*`] }),
    );
    target.role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [`${resultsArn}/${RESULTS_PREFIX}*`],
      }),
    );
    if (access === 'ingest') {
      target.role.addToPolicy(
        new PolicyStatement({ actions: ['s3:GetObject'], resources: [`${billingArn}/${UPLOADS_PREFIX}*`] }),
      );
      target.role.addToPolicy(
        new PolicyStatement({
          actions: ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
          resources: [`${billingArn}/${CURATED_PREFIX}*`],
        }),
      );
      // The versions an upload replaced: kept, read back by a restore.
      target.role.addToPolicy(
        new PolicyStatement({
          actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload'],
          resources: [`${billingArn}/${REPLACED_PREFIX}*`],
        }),
      );
    }
    const billing = renderedAttribute(target, this.billingBucket.node.defaultChild as CfnBucket, 'Arn');
    const results = renderedAttribute(target, this.resultsBucket.node.defaultChild as CfnBucket, 'Arn');
    const findings = [
      `Resource::<${billing}>/${CURATED_PREFIX}*`,
      `Resource::<${results}>/${RESULTS_PREFIX}*`,
      ...(access === 'ingest'
        ? [`Resource::<${billing}>/${UPLOADS_PREFIX}*`, `Resource::<${billing}>/${REPLACED_PREFIX}*`]
        : []),
    ];
    for (const finding of findings) {
      Validations.of(target).acknowledge({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason:
          'Object keys under a warehouse prefix are created at run time (one per org and month), so ' +
          'the grant names the prefix; it is limited to that prefix of that bucket.',
      });
    }
  }
}

/** Length of `stackInstanceSuffix()`: the last group of the stack id's UUID, 12 hex digits. */
export const STACK_SUFFIX_LENGTH = 12;

/**
 * The last 12 hex digits of `AWS::StackId` (a UUID CloudFormation draws when it creates the
 * stack): lowercase letters and digits, valid in bucket, Glue and Athena names, stable for the
 * stack's life and different for a stack of the same name created after a delete.
 */
export function stackInstanceSuffix(stack: Stack): string {
  // `stack.stackId`, not `Aws.STACK_ID`: used in a nested stack it stays the id of this stack
  // (CDK passes it in as a parameter), where the pseudo parameter would be the nested stack's own.
  return Fn.select(4, Fn.split('-', Fn.select(2, Fn.split('/', stack.stackId))));
}

/**
 * How cdk-nag renders an attribute of `target` inside a policy of `consumer`: `<logicalId>.<attr>`
 * in the same stack, or, from a nested stack, the parameter CDK passes the reference in as
 * (`referenceto<unique id of target><attr>`; from a sibling nested stack, the producer's output
 * read through its stack resource: `referenceto<unique id of that resource>Outputs<output id>`).
 * Acknowledgements name findings by it.
 */
export function renderedAttribute(consumer: Construct, target: CfnElement, attribute: string): string {
  const consumerStack = Stack.of(consumer);
  const producerStack = Stack.of(target);
  if (consumerStack === producerStack) return `${producerStack.getLogicalId(target)}.${attribute}`;
  const output = `${Names.nodeUniqueId(target.node)}${attribute}`;
  const producer = producerStack instanceof NestedStack ? producerStack.nestedStackResource : undefined;
  if (producer && consumerStack !== producerStack.nestedStackParent)
    return `referenceto${Names.nodeUniqueId(producer.node)}Outputs${output}`;
  return `referenceto${output}`;
}
