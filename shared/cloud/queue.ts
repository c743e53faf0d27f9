import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config, emulatedClientConfig, queueUrl } from '../config';
import { mapLimit } from '../pool';
import type { QueueName } from '../queues';

/**
 * The work queues (SQS in AWS, fauxqs locally): the one SQS client of the service's code, and the
 * JSON message sender every producer uses. Queues are named by `QUEUE` of ../queues.ts; the URL of
 * each comes from the configuration.
 */

let client: SQSClient | undefined;

function sqs(): SQSClient {
  client ??= new SQSClient(emulatedClientConfig(config().sqsEndpoint));
  return client;
}

/** Sends one message to the named queue; throws when SQS refuses it. */
export async function sendToQueue(queue: QueueName, body: string): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: body }));
}

/** SendMessageBatch limits: 10 entries, and a total payload we keep under 256 KiB. */
const BATCH_ENTRIES = 10;
const BATCH_BYTES = 240 * 1024;

/**
 * Sends several messages to the named queue with SendMessageBatch (at most 10 and ~240 KiB a
 * call, `concurrency` calls at once). Answers, for each body in order, null when SQS took it or
 * the error when it refused it (a partial failure of a batch fails only its own entries).
 */
export async function sendBatchToQueue(
  queue: QueueName,
  bodies: readonly string[],
  concurrency = 4,
): Promise<(Error | null)[]> {
  const out: (Error | null)[] = bodies.map(() => null);
  const chunks: number[][] = [];
  let chunk: number[] = [];
  let bytes = 0;
  bodies.forEach((body, i) => {
    const size = Buffer.byteLength(body);
    if (chunk.length && (chunk.length === BATCH_ENTRIES || bytes + size > BATCH_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(i);
    bytes += size;
  });
  if (chunk.length) chunks.push(chunk);
  await mapLimit(chunks, concurrency, async (indexes) => {
    try {
      const res = await sqs().send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl(queue),
          Entries: indexes.map((i) => ({ Id: `m${i}`, MessageBody: bodies[i]! })),
        }),
      );
      for (const f of res.Failed ?? [])
        out[Number(f.Id?.slice(1))] = new Error(`SQS refused the message: ${f.Code} ${f.Message ?? ''}`);
    } catch (error) {
      for (const i of indexes) out[i] = error instanceof Error ? error : new Error(String(error));
    }
  });
  return out;
}

/** Sends one JSON message to a work queue. */
export async function enqueue(queue: QueueName, body: unknown): Promise<void> {
  await sendToQueue(queue, JSON.stringify(body));
}

/** Sends several JSON messages (SendMessageBatch); per message, null when sent or the error. */
export async function enqueueMany(queue: QueueName, bodies: readonly unknown[]): Promise<(Error | null)[]> {
  return sendBatchToQueue(
    queue,
    bodies.map((b) => JSON.stringify(b)),
  );
}

/** For tests and the local runtime, which point the client at a fresh endpoint. */
export function resetQueueClient(): void {
  client = undefined;
}
