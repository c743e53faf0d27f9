import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config, queueUrl } from '../config';

/**
 * Sends one JSON message to a queue of `shared/queues.ts`. Same shape as the alerts branch's
 * `shared/notify/queue.ts` (`enqueue(queue, body)`); the lead merges the two into one.
 */
let client: SQSClient | undefined;

function sqs(): SQSClient {
  if (!client) {
    const c = config();
    client = new SQSClient({
      region: c.region,
      ...(c.sqsEndpoint
        ? { endpoint: c.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
      maxAttempts: 3,
    });
  }
  return client;
}

export async function enqueueJson(queue: string, body: unknown): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: JSON.stringify(body) }));
}
