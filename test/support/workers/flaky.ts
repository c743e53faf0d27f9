import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/**
 * A worker used only by the poller tests: records each message body it takes in a list kept in
 * the global scope, fails messages whose body is `poison` (partial batch failure) and throws for
 * the whole batch when a body is `crash`.
 */
export const seen: string[] = [];
(globalThis as { __flakySeen?: string[] }).__flakySeen = seen;

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    if (record.body === 'crash') throw new Error('whole batch fails');
    if (record.body === 'poison') failures.push({ itemIdentifier: record.messageId });
    else seen.push(record.body);
  }
  return { batchItemFailures: failures };
}
