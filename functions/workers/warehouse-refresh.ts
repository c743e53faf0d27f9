import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadEnrichments } from '../../shared/domain/billing/enrichment-source';
import { runRefresh } from '../../shared/domain/billing/refresh';
import { parseRefreshRequest } from '../../shared/domain/billing/refresh-request';
import { log, withInvocationLogContext } from '../../shared/log';
import { getWarehouse } from '../../shared/warehouse/warehouse';
import { processPartialResponse } from '../../shared/workers/batch';

/**
 * Consumer of `warehouse-refresh` (sent through the outbox by publishes and ingestions). Each
 * message is refreshed on its own; a failure is reported for that message only (partial batch
 * response), so SQS retries it and finally moves it to the DLQ. A message that cannot be parsed
 * fails the same way and ends in the DLQ.
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  const warehouse = await getWarehouse();
  return processPartialResponse(
    event,
    async (record) => {
      const request = parseRefreshRequest(record.body);
      const outcome = await runRefresh(request, { warehouse, loadEnrichments, now: () => new Date() });
      log.info('warehouse refresh', {
        orgId: request.orgId,
        requestId: request.requestId,
        mode: request.mode,
        outcome,
      });
    },
    { failureMessage: 'warehouse refresh message failed' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
