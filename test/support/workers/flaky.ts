import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processPartialResponse } from '../../../shared/workers/batch';

/**
 * A worker used only by the poller tests: records each message body it takes in a list kept in
 * the global scope, fails messages whose body is `poison` (partial batch failure) and throws for
 * the whole batch when a body is `crash`.
 */
export const seen: string[] = [];
(globalThis as { __flakySeen?: string[] }).__flakySeen = seen;

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  if (event.Records.some((record) => record.body === 'crash')) throw new Error('whole batch fails');
  return processPartialResponse(event, async (record) => {
    if (record.body === 'poison') throw new Error('poison message');
    seen.push(record.body);
  });
}
