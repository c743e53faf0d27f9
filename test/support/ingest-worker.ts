import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { resetQueueClient } from '../../shared/cloud/queue';
import { resetConfig } from '../../shared/config';
import { s3CreatedBody, sqsEventOf } from './sqs';

/**
 * What a suite of the billing-ingest worker runs it against: a local bucket folder of its own
 * (`LOCAL_BUCKET_DIR`) and a refresh queue of its own (`QUEUE_URL_WAREHOUSE_REFRESH`, made before
 * its tests and deleted after), so the running stack's worker never sees its uploads or requests.
 */
export function ingestWorkerHarness(name: string) {
  const bucket = mkdtempSync(join(tmpdir(), `${name}-`));
  const sqs = new SQSClient({
    endpoint: process.env.SQS_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const run = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  let queueUrl = '';

  beforeAll(async () => {
    const q = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-${run}` }));
    queueUrl = q.QueueUrl ?? '';
    process.env.QUEUE_URL_WAREHOUSE_REFRESH = queueUrl;
    process.env.LOCAL_BUCKET_DIR = bucket;
    resetConfig();
    resetQueueClient();
  });
  afterAll(async () => {
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => undefined);
    sqs.destroy();
  });

  return {
    /** A tag that makes this run's keys and organisations unique. */
    run,
    /** The refresh queue's URL (once the suite has started). */
    queueUrl: () => queueUrl,
    /** Puts a file (a path to copy, or bytes) at `key` in the bucket folder. */
    upload(key: string, source: string | Buffer): void {
      const path = join(bucket, key);
      mkdirSync(dirname(path), { recursive: true });
      if (typeof source === 'string') copyFileSync(source, path);
      else writeFileSync(path, source);
    },
    /** The SQS event of S3's "object created" for `key`. */
    s3Event(key: string, eTag: string, messageId = `m-${eTag}`): SQSEvent {
      return sqsEventOf([{ messageId, body: s3CreatedBody('local-billing', key, eTag) }], 'billing-ingest');
    },
    /** The refresh requests sent so far (each read once). */
    async receiveAll(): Promise<string[]> {
      const res = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      return (res.Messages ?? []).map((m) => m.Body ?? '');
    },
  };
}
