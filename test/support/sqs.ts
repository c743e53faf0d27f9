import { CreateQueueCommand, DeleteQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { sqsEvent } from '../../infra/local/pollers';
import { resetQueueClient } from '../../shared/cloud/queue';
import { resetConfig } from '../../shared/config';

/** A message of a test batch: its body, and optionally its id (default `m<position>`). */
export type TestMessage = string | { body: string; messageId: string };

/**
 * The SQS event a worker receives for these message bodies, built by the same function the local
 * pollers use to invoke workers, so tests feed workers exactly what `npm start` does.
 */
export function sqsEventOf(messages: readonly TestMessage[], queueName = 'test-queue'): SQSEvent {
  return sqsEvent(
    `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
    messages.map((m, i) =>
      typeof m === 'string'
        ? { MessageId: `m${i}`, Body: m, ReceiptHandle: 'r' }
        : { MessageId: m.messageId, Body: m.body, ReceiptHandle: 'r' },
    ),
  );
}

/** The body of an S3 `ObjectCreated:Put` notification for one object, as S3 sends it to SQS. */
export function s3CreatedBody(bucket: string, key: string, eTag: string, size = 1): string {
  return JSON.stringify({
    Records: [
      { eventName: 'ObjectCreated:Put', s3: { bucket: { name: bucket }, object: { key, eTag, size } } },
    ],
  });
}

/** A queue stand-in (a sweep's `send`, an evaluator's notifications): keeps what it is sent in `into` and accepts all of it. */
export function collectingQueue<T>(into: T[]): (items: readonly T[]) => Promise<null[]> {
  return async (items) => {
    into.push(...items);
    return items.map(() => null);
  };
}

/**
 * A queue of the suite's own, `name` on fauxqs, made before its tests and deleted after: `envVar`
 * (a queue's `QUEUE_URL_…`) points the service's code at it, so the running stack's poller never
 * takes what the suite sends. The getter answers its URL once made.
 */
export function suiteQueue(sqs: SQSClient, name: string, envVar: string): () => string {
  let url = '';
  beforeAll(async () => {
    url = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl ?? '';
    process.env[envVar] = url;
    resetConfig();
    resetQueueClient();
  });
  afterAll(async () => {
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
  });
  return () => url;
}
