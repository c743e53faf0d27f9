import { sendToQueue } from '../cloud/queue';

/** Sends one JSON message to a queue of `shared/queues.ts`. */
export async function enqueue(queue: string, body: unknown): Promise<void> {
  await sendToQueue(queue, JSON.stringify(body));
}
