import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processUpload, s3ObjectsOf } from '../../shared/domain/billing/ingestion';
import { processRestore } from '../../shared/domain/uploads/restore';
import { restoreRequestOf } from '../../shared/domain/uploads/uploads';
import { withInvocationLogContext } from '../../shared/log';
import { processPartialResponse } from '../../shared/workers/batch';

/**
 * Consumer of `billing-ingest`: S3 `ObjectCreated` events of the billing bucket's `uploads/`
 * prefix (locally, the same events written by `npm run ingest`). Each message is processed on
 * its own; a transient failure reports that message only, so SQS retries it and then moves it to
 * the DLQ. An upload that can never ingest as it is (an unregistered organisation, a malformed
 * file, any `IngestRejected` from shared/warehouse/ingest/errors.ts) is recorded as rejected with
 * its reason (`recordIngestRejection`) and not retried. The queue also carries the restores that
 * `POST /billing/uploads/{id}/restore` asks for (shared/domain/uploads/restore.ts).
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  return processPartialResponse(
    event,
    async (record) => {
      const restore = restoreRequestOf(record.body);
      if (restore) return processRestore(restore);
      for (const obj of s3ObjectsOf(record.body)) await processUpload(obj);
    },
    { failureMessage: 'billing upload failed; will retry' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
