import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientLimits, config, queueUrl } from '../config';

/**
 * The work queues (SQS in AWS, fauxqs locally): the one SQS client of the service's code. Queues
 * are named as in ../queues.ts; the URL of each comes from the configuration.
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
      ...awsClientLimits(),
    });
  }
  return client;
}

/** Sends one message to the named queue; throws when SQS refuses it. */
export async function sendToQueue(queue: string, body: string): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: body }));
}

/** For tests and the local runtime, which point the client at a fresh endpoint. */
export function resetQueueClient(): void {
  client = undefined;
}
