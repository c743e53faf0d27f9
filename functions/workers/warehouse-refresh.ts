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
 * fails the same way and ends in the DLQ. After a refresh the forecasts of the organisation's
 * dashboards are computed and kept (`keepDashboardForecasts`); one that fails is logged, never a
 * failed refresh.
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  const warehouse = await getWarehouse();
  return processPartialResponse(
    event,
    async (record) => {
      const request = parseRefreshRequest(record.body);
      const outcome = await runRefresh(request, { warehouse, loadEnrichments, now: () => new Date() });
      // New data: the dashboards' forecasts computed now, kept for whoever opens them first.
      const forecasts = outcome === 'refreshed' ? await keepForecasts(request.orgId) : undefined;
      log.info('warehouse refresh', {
        orgId: request.orgId,
        requestId: request.requestId,
        mode: request.mode,
        outcome,
        forecasts,
      });
    },
    { failureMessage: 'warehouse refresh message failed' },
  );
}

/** The dashboards' forecasts kept (the query engine loaded only when a refresh was made). */
async function keepForecasts(orgId: string) {
  const [{ keepDashboardForecasts }, { keepForecastsDeps }] = await Promise.all([
    import('../../shared/domain/queries/keep-forecasts'),
    import('../../shared/domain/queries/adapters/keep-forecasts'),
  ]);
  return keepDashboardForecasts(orgId, keepForecastsDeps());
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
