import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { log, withLogContext } from '../log';

/** What a record handler receives besides the record: its position in the batch. */
export interface RecordContext {
  /** 0-based position of the record in `event.Records`. */
  index: number;
}

export interface BatchOptions {
  /**
   * The log message written (at `error`, with the record's `messageId` and the error) when a
   * record fails, e.g. `'warehouse refresh message failed'`. Default: `'SQS record failed'`.
   */
  failureMessage?: string;
}

/**
 * The loop of every SQS worker, modelled on Powertools' `processPartialResponse`: each record of
 * the batch is handed to `handleRecord`, one after the other, in the order SQS delivered them.
 *
 * Contract:
 * - A record whose handler resolves is done: SQS deletes it.
 * - A record whose handler throws (or rejects) is logged with its `messageId` and reported in
 *   `batchItemFailures` by that `messageId`; the other records are unaffected. SQS makes only the
 *   failed ones visible again, retries them and, after the queue's `maxReceiveCount`, moves them
 *   to its DLQ. This needs `reportBatchItemFailures` on the event source mapping (the stack sets
 *   it on every worker) and the local pollers honour the same response.
 * - A record that can never succeed (unparseable body) fails the same way and ends in the DLQ;
 *   a handler that wants to drop such a record instead must catch and return.
 * - Every record is attempted even when all fail: the response then names all of them (no
 *   whole-batch error is thrown, unlike Powertools' default). Records are processed sequentially;
 *   ordering across batches is not guaranteed (standard queues), so handlers must be idempotent —
 *   SQS delivers at least once.
 * - Errors thrown before the loop (e.g. while the worker opens a connection it needs for every
 *   record) are the caller's: let them fail the whole invocation, so the batch is retried whole.
 */
export async function processPartialResponse(
  event: SQSEvent,
  handleRecord: (record: SQSRecord, context: RecordContext) => Promise<unknown>,
  options: BatchOptions = {},
): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchItemFailure[] = [];
  for (const [index, record] of event.Records.entries()) {
    try {
      // Every line logged while the record is handled names its message.
      await withLogContext({ messageId: record.messageId }, () => handleRecord(record, { index }));
    } catch (error) {
      log.error(options.failureMessage ?? 'SQS record failed', { messageId: record.messageId, error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
