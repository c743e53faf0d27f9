import { Duration, NestedStack, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUE, type ScheduleDef, type WorkerDef } from '../../shared/queues';
import type { ServiceAlarms } from './alarms';
import { SYNC_INVOCATION_DLQ_REASON } from './route-area';
import type { ServiceFunction } from './service-function';
import type { ServiceFunctions } from './service-functions';
import type { WorkQueues } from './work-queues';

export interface JobsProps {
  stage: string;
  workers: readonly WorkerDef[];
  schedules: readonly ScheduleDef[];
  workQueues: WorkQueues;
  functions: ServiceFunctions;
  alarms: ServiceAlarms;
}

const EVENT_SOURCE_DESTINATION_REASON =
  'SQS event sources do not take an on-failure destination; a message that keeps failing moves ' +
  'to the queue’s dead-letter queue through its redrive policy (maxReceiveCount).';

const SCHEDULE_FAILURES_REASON =
  'This queue is itself a dead-letter queue: of the schedule rules’ targets and of the schedule ' +
  'functions’ asynchronous invocations.';

/**
 * The queue workers and EventBridge schedules as one nested stack `Jobs`: per worker of the
 * manifest (`shared/queues.ts` `workers`) a function `Worker-<name>` fed by its queue, and per
 * schedule a function `Schedule-<name>` and its rule, whose failures go to `ScheduleFailures`.
 * A new worker or schedule is one more manifest entry; nothing here names one.
 */
export class Jobs extends NestedStack {
  readonly workerFunctions = new Map<string, ServiceFunction>();
  readonly scheduleFunctions = new Map<string, ServiceFunction>();

  constructor(
    scope: Construct,
    private readonly props: JobsProps,
  ) {
    super(scope, 'Jobs', {
      description: `Cost management service (${props.stage}): queue workers and schedules`,
    });
    for (const def of props.workers) this.workerFunctions.set(def.name, this.addWorker(def));
    if (props.schedules.length > 0) {
      const failures = this.scheduleFailures();
      for (const def of props.schedules)
        this.scheduleFunctions.set(def.name, this.addSchedule(def, failures));
    }
  }

  private addWorker(def: WorkerDef): ServiceFunction {
    const { workQueues } = this.props;
    const queueDef = workQueues.definition(def.queue);
    if (queueDef.visibilityTimeoutSeconds < def.timeoutSeconds) {
      throw new Error(
        `Worker ${def.name}: queue ${def.queue} hides messages for ${queueDef.visibilityTimeoutSeconds} s, ` +
          `less than the worker's ${def.timeoutSeconds} s timeout (use at least 6× the timeout)`,
      );
    }
    const fn = this.props.functions.create(this, `Worker-${def.name}`, {
      entry: `functions/${def.entry}.ts`,
      description: `Worker ${def.name} (queue ${def.queue})`,
      memoryMb: def.memoryMb,
      timeoutSeconds: def.timeoutSeconds,
      needs: {
        table: 'readwrite',
        sendsTo: def.sendsTo,
        warehouse: def.usesWarehouse ? 'ingest' : undefined,
        sendsEmail: def.sendsEmail,
        readsSlackToken: def.sendsEmail === true || def.queue === QUEUE.notifications,
        duckDb: def.needsDuckDb,
        invitesUsers: def.invitesUsers,
        rendersCharts: def.rendersCharts,
        publishesMessageImages: def.queue === QUEUE.notifications,
      },
    });
    fn.fn.addEventSource(
      new SqsEventSource(workQueues.queue(def.queue), {
        batchSize: def.batchSize,
        reportBatchItemFailures: true,
        maxBatchingWindow: def.batchSize > 10 ? Duration.seconds(1) : undefined,
      }),
    );
    Validations.of(fn).acknowledge(
      { id: 'Serverless-LambdaDLQ', reason: SYNC_INVOCATION_DLQ_REASON },
      { id: 'Serverless-LambdaEventSourceMappingDestination', reason: EVENT_SOURCE_DESTINATION_REASON },
    );
    this.props.alarms.functionAlarm(this, `Worker-${def.name}-Alarm`, fn.fn, `Worker ${def.name}`);
    return fn;
  }

  /** The dead-letter queue of the schedule rules and functions, with its alarm. */
  private scheduleFailures(): Queue {
    const failures = new Queue(this, 'ScheduleFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.props.alarms.queueNotEmpty(this, 'Alarm-ScheduleFailures', failures, 'The schedule failure queue');
    Validations.of(failures).acknowledge(
      { id: 'AwsSolutions-SQS3', reason: SCHEDULE_FAILURES_REASON },
      { id: 'Serverless-SQSRedrivePolicy', reason: SCHEDULE_FAILURES_REASON },
    );
    return failures;
  }

  private addSchedule(def: ScheduleDef, failures: Queue): ServiceFunction {
    const fn = this.props.functions.create(this, `Schedule-${def.name}`, {
      entry: `functions/${def.entry}.ts`,
      description: `Schedule ${def.name} (${def.expression})`,
      timeoutSeconds: def.timeoutSeconds,
      deadLetterQueue: failures,
      needs: { table: 'readwrite', sendsTo: def.sendsTo },
    });
    new Rule(this, `Schedule-${def.name}-Rule`, {
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
    this.props.alarms.functionAlarm(this, `Schedule-${def.name}-Alarm`, fn.fn, `Schedule ${def.name}`);
    return fn;
  }
}
