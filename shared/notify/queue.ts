import { sendBatchToQueue, sendToQueue } from '../cloud/queue';

/** Sends one JSON message to a queue of `shared/queues.ts`. */
export async function enqueue(queue: string, body: unknown): Promise<void> {
  await sendToQueue(queue, JSON.stringify(body));
}

/** Sends several JSON messages (SendMessageBatch); per message, null when sent or the error. */
export async function enqueueMany(queue: string, bodies: readonly unknown[]): Promise<(Error | null)[]> {
  return sendBatchToQueue(
    queue,
    bodies.map((b) => JSON.stringify(b)),
  );
}
