import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { dlqName, type QueueDef } from '../../shared/queues';

export interface WorkQueuesProps {
  queues: readonly QueueDef[];
}

/** The variable a function reads a queue's URL from (see `shared/config.ts`). */
export function queueUrlVariable(name: string): string {
  return `QUEUE_URL_${name.toUpperCase().replaceAll('-', '_')}`;
}

/**
 * The queues of the manifest, each with its own dead-letter queue: SSE-SQS encryption (no KMS key
 * to manage, and S3/EventBridge can still deliver to it), TLS-only access, and the manifest's
 * visibility timeout and receive count.
 */
export class WorkQueues extends Construct {
  private readonly byName = new Map<string, { queue: Queue; dlq: Queue; def: QueueDef }>();

  constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    for (const def of props.queues) {
      if (this.byName.has(def.name)) throw new Error(`Queue ${def.name} is declared twice`);
      const dlq = new Queue(this, dlqName(def.name), {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(dlq).acknowledge({
        id: 'Serverless-SQSRedrivePolicy',
        reason: `This is the dead-letter queue of ${def.name}; a DLQ of a DLQ would only move the problem.`,
      });
      const queue = new Queue(this, def.name, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        // Longer than the DLQ's would be pointless; four days leaves room for a weekend outage.
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      this.byName.set(def.name, { queue, dlq, def });
    }
  }

  /** The queue of that name; a synth error if the manifest does not declare it. */
  queue(name: string): Queue {
    return this.entry(name).queue;
  }

  dlq(name: string): Queue {
    return this.entry(name).dlq;
  }

  definition(name: string): QueueDef {
    return this.entry(name).def;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  private entry(name: string) {
    const found = this.byName.get(name);
    if (!found) throw new Error(`Unknown queue "${name}": it is not declared in shared/queues.ts`);
    return found;
  }
}
