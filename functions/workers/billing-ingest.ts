import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processUpload, s3ObjectsOf } from '../../shared/domain/dimensions/ingestion';
import { log } from '../../shared/log';

/**
 * Consumer of `billing-ingest`: S3 `ObjectCreated` events of the billing bucket's `uploads/`
 * prefix (locally, the same events written by `npm run ingest`). Each message is processed on
 * its own; a transient failure reports that message only, so SQS retries it and then moves it to
 * the DLQ. Malformed files are recorded as rejected and not retried.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      for (const obj of s3ObjectsOf(record.body)) await processUpload(obj);
    } catch (error) {
      log.error('billing upload failed; will retry', { messageId: record.messageId, error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
