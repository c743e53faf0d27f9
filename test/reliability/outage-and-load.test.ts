import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_TIMEOUT_SECONDS } from '../../infra/constructs/service-function';
import { type SpawnedStack, spawnLocalStack } from '../../infra/local/spawn-stack';
import type { Notification } from '../../shared/domain/alerts/notification';
import { prepareLoadMix, runLoad } from '../support/load';
import { testEmailNotification } from '../support/reliability';
import type { Session } from '../support/session';

/**
 * Issue 18, items 12 and 13, on a stack of this file's own (`npm start -- --faults`), so that
 * neither the load nor the outages disturb the suites sharing the global stack:
 * - 50 connections for 30 s over a mix of reads, queries and writes: every answer is a 2xx;
 * - SQS, then DynamoDB Local, go down in the middle of a batch of notifications (fauxqs behind a
 *   proxy that resets and refuses connections; DynamoDB Local's JVM killed); the API answers
 *   503 `{error}` meanwhile, well within an HTTP function's timeout; once both are back, every
 *   notification was e-mailed exactly once or sits in the DLQ, and none twice.
 */

let stack: SpawnedStack<Session>;
const s = () => stack.session;

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${s().baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${s().apiKeys.admin}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, ms: Date.now() - started };
}

const fault = async (service: 'sqs' | 'dynamodb', state: 'down' | 'up') => {
  const res = await call('POST', '/_local/faults', { service, state });
  expect(res).toMatchObject({ status: 200, body: { service, state } });
};

beforeAll(async () => {
  stack = await spawnLocalStack<Session>({ prefix: 'cms-reliability-', extraArgs: ['--faults'] });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('load on the local stack (issue 18, item 13)', () => {
  it('answers every request of a 50-connection, 30 s mixed load with a 2xx: no 5xx, no error, no timeout', async () => {
    const requests = await prepareLoadMix(s().baseUrl, s().apiKeys.admin);
    const result = await runLoad({ baseUrl: s().baseUrl, requests, connections: 50, seconds: 30 });
    expect(result.failures).toEqual({});
    expect({ errors: result.errors, timeouts: result.timeouts }).toEqual({ errors: 0, timeouts: 0 });
    // Every route of the mix was reached many times over (10 requests per round).
    expect(result.requests).toBeGreaterThan(requests.length * 50);
  }, 120_000);
});

interface StoredEmail {
  destination: { to: string[] };
}

describe('SQS and DynamoDB Local going down mid-batch (issue 18, item 12)', () => {
  it('answers 503 {error} quickly while a dependency is down and loses no message', async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const address = (i: number) => `outage-${run}-${i}@example.com`;
    const sqs = new SQSClient({
      endpoint: s().endpoints.sqs,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const queue = s().queues.notifications as { url: string; dlqUrl: string };
    const notification = (i: number): Notification =>
      testEmailNotification(`outage-${run}-${i}`, s().orgId, address(i), `outage ${i}`);
    const COUNT = 60;
    for (let i = 0; i < COUNT; i += 10) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: Array.from({ length: 10 }, (_, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify(notification(i + j)),
          })),
        }),
      );
    }
    const delivered = async (): Promise<Map<string, number>> => {
      const { emails } = (await (await fetch(s().mailUrl)).json()) as { emails: StoredEmail[] };
      const counts = new Map<string, number>();
      for (const e of emails)
        for (const to of e.destination.to)
          if (to.includes(`outage-${run}-`)) counts.set(to, (counts.get(to) ?? 0) + 1);
      return counts;
    };
    // In the middle of the batches: the worker has sent some, not all.
    const deadline = Date.now() + 60_000;
    while ((await delivered()).size === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect((await delivered()).size).toBeGreaterThan(0);

    await fault('sqs', 'down');
    // The outage starts in the middle of the work: some were sent, not all.
    expect((await delivered()).size).toBeLessThan(COUNT);
    // A route that enqueues: SQS refuses, the API answers 503 {error}, within a function's timeout.
    const send = await call('POST', '/alerts-v2/budgetAlerts/sendTest', {
      notificationChannel: 'EMAIL',
      emails: [`outage-${run}-api@example.com`],
    });
    expect(send.status).toBe(503);
    expect(send.body).toEqual({ error: expect.any(String) });
    expect(send.ms).toBeLessThan(DEFAULT_TIMEOUT_SECONDS * 1000);
    await new Promise((r) => setTimeout(r, 1500));

    await fault('dynamodb', 'down');
    const list = await call('GET', '/reports');
    expect(list.status).toBe(503);
    expect(list.body).toEqual({ error: expect.any(String) });
    expect(list.ms).toBeLessThan(DEFAULT_TIMEOUT_SECONDS * 1000);
    await new Promise((r) => setTimeout(r, 1500));

    await fault('sqs', 'up');
    await fault('dynamodb', 'up');
    // The API recovers by itself once DynamoDB Local is back.
    const recovery = Date.now() + 30_000;
    let after = await call('GET', '/reports');
    while (after.status !== 200 && Date.now() < recovery) {
      await new Promise((r) => setTimeout(r, 250));
      after = await call('GET', '/reports');
    }
    expect(after.status).toBe(200);
    const drained = await call('POST', '/_local/drain', { timeoutMs: 120_000 });
    expect(drained).toMatchObject({ status: 200, body: { drained: true } });

    const dead = new Set<string>();
    for (;;) {
      const res = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.dlqUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 600,
        }),
      );
      if (!res.Messages?.length) break;
      for (const m of res.Messages) dead.add((JSON.parse(m.Body ?? '{}') as Notification).emails[0] ?? '');
    }
    const sent = await delivered();
    for (let i = 0; i < COUNT; i++) {
      const times = sent.get(address(i)) ?? 0;
      // Never lost (sent, or dead-lettered for an operator to look at), and never sent twice.
      const fate = { address: address(i), lost: times === 0 && !dead.has(address(i)), sentTwice: times > 1 };
      expect(fate).toEqual({ address: address(i), lost: false, sentTwice: false });
    }
    sqs.destroy();
  }, 240_000);
});
