import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type Poller, queueDepth, startPoller } from '../../../infra/local/pollers';
import { ensureQueue, type LocalQueue } from '../../../infra/local/setup-aws';
import type { WorkerDef } from '../../../shared/queues';
import { until } from '../../support/reliability';
import { seen } from '../../support/workers/flaky';

const sqs = new SQSClient({ endpoint: process.env.SQS_ENDPOINT, region: 'us-east-1' });

const worker: WorkerDef = {
  name: 'flaky',
  queue: 'unused',
  // Resolved relative to functions/, as real worker entries are.
  entry: '../test/support/workers/flaky',
  batchSize: 10,
  timeoutSeconds: 10,
  memoryMb: 128,
};

describe('local SQS pollers (fauxqs)', () => {
  let queue: LocalQueue;
  let poller: Poller;

  beforeAll(async () => {
    queue = await ensureQueue(
      sqs,
      { name: `test-${randomUUID().slice(0, 8)}`, visibilityTimeoutSeconds: 30, maxReceiveCount: 2 },
      1,
    );
    poller = startPoller(sqs, worker, queue, { retryDelaySeconds: 0 });
  });
  afterAll(async () => {
    await poller.stop();
    sqs.destroy();
  });

  it('processes a batch, deletes the successes once, and moves only the poison message to the DLQ', async () => {
    const good = Array.from({ length: 9 }, (_, i) => `ok-${randomUUID()}-${i}`);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: [...good, 'poison'].map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    await until(async () => good.every((g) => seen.includes(g)) && (await queueDepth(sqs, queue.url)) === 0);
    for (const g of good) expect(seen.filter((s) => s === g)).toHaveLength(1);

    const dlq = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect((dlq.Messages ?? []).map((m) => m.Body)).toEqual(['poison']);
  });

  it('retries a batch whose handler throws, then dead-letters it after maxReceiveCount', async () => {
    await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: [{ Id: '1', MessageBody: 'crash' }] }),
    );
    await until(async () => (await queueDepth(sqs, queue.url)) === 0);
    const dlq = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect((dlq.Messages ?? []).map((m) => m.Body)).toContain('crash');
  });
});
