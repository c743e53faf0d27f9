import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadEnrichments } from '../../shared/domain/dimensions/enrichment-source';
import { runRefresh } from '../../shared/domain/dimensions/refresh';
import { parseRefreshRequest } from '../../shared/domain/dimensions/refresh-request';
import { log } from '../../shared/log';
import { getWarehouse } from '../../shared/warehouse/warehouse';

/**
 * Consumer of `warehouse-refresh` (sent through the outbox by publishes and ingestions). Each
 * message is refreshed on its own; a failure is reported for that message only (partial batch
 * response), so SQS retries it and finally moves it to the DLQ. A message that cannot be parsed
 * fails the same way and ends in the DLQ.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const warehouse = await getWarehouse();
  for (const record of event.Records) {
    try {
      const request = parseRefreshRequest(record.body);
      const outcome = await runRefresh(request, { warehouse, loadEnrichments, now: () => new Date() });
      log.info('warehouse refresh', {
        orgId: request.orgId,
        requestId: request.requestId,
        mode: request.mode,
        outcome,
      });
    } catch (error) {
      log.error('warehouse refresh message failed', { messageId: record.messageId, error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
