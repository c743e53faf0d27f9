import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../../shared/log';
import type { WorkerDef } from '../../shared/queues';
import { lambdaContext } from './lambda-context';

type WorkerHandler = (event: SQSEvent, context: unknown) => Promise<SQSBatchResponse | undefined>;

export interface Poller {
  worker: WorkerDef;
  busy: boolean;
  stop(): Promise<void>;
}

/** Builds the SQS event Lambda's event source mapping would deliver for these messages. */
export function sqsEvent(queueArn: string, messages: Message[]): SQSEvent {
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId ?? randomUUID(),
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
      attributes: {
        ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp:
          m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

/**
 * Long-polls one queue and invokes the worker's handler the way an event source mapping with
 * `ReportBatchItemFailures` does: successful messages are deleted, failed ones are made visible
 * again after `retryDelaySeconds` and reach the DLQ through the queue's redrive policy.
 */
export function startPoller(
  sqs: SQSClient,
  worker: WorkerDef,
  queue: { url: string; arn: string },
  opts: {
    retryDelaySeconds: number;
    /** Called after each invocation with the event and the handler's answer (undefined if it threw). */
    onBatch?: (event: SQSEvent, result: SQSBatchResponse | undefined) => void;
  },
): Poller {
  let running = true;
  let handlerPromise: Promise<WorkerHandler> | undefined;
  const poller: Poller = {
    worker,
    busy: false,
    stop: async () => {
      running = false;
      await loop;
    },
  };
  const load = () => {
    handlerPromise ??= import(join(__dirname, '..', '..', 'functions', `${worker.entry}.ts`)).then(
      (m: { handler: WorkerHandler }) => m.handler,
    );
    return handlerPromise;
  };
  const loop = (async () => {
    while (running) {
      try {
        const res = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: Math.min(worker.batchSize, 10),
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        const messages = res.Messages ?? [];
        if (!messages.length) continue;
        poller.busy = true;
        const failed = new Set<string>();
        const event = sqsEvent(queue.arn, messages);
        try {
          const handler = await load();
          const result = await handler(event, lambdaContext(worker.name, worker.timeoutSeconds));
          opts.onBatch?.(event, result ?? undefined);
          for (const f of result?.batchItemFailures ?? []) failed.add(f.itemIdentifier);
        } catch (error) {
          // A thrown handler fails the whole batch, as in Lambda.
          log.error('worker failed its batch', { worker: worker.name, error });
          opts.onBatch?.(event, undefined);
          for (const m of messages) failed.add(m.MessageId ?? '');
        }
        const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
        if (done.length) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queue.url,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
            }),
          );
        }
        for (const m of messages.filter((msg) => failed.has(msg.MessageId ?? ''))) {
          await sqs
            .send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: queue.url,
                ReceiptHandle: m.ReceiptHandle ?? '',
                VisibilityTimeout: opts.retryDelaySeconds,
              }),
            )
            .catch(() => {});
        }
      } catch (error) {
        if (running) {
          log.warn('poller receive failed', { worker: worker.name, error: String(error) });
          await new Promise((r) => setTimeout(r, 500));
        }
      } finally {
        poller.busy = false;
      }
    }
  })();
  return poller;
}

/** Messages waiting or in flight on a queue. */
export async function queueDepth(sqs: SQSClient, url: string): Promise<number> {
  const res = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const a = res.Attributes ?? {};
  return (
    Number(a.ApproximateNumberOfMessages ?? 0) +
    Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(a.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}
