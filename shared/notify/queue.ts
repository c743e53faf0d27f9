import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config, queueUrl } from '../config';

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

/** Sends one JSON message to a queue of `shared/queues.ts`. */
export async function enqueue(queue: string, body: unknown): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: JSON.stringify(body) }));
}
