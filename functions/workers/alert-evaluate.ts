import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type EvaluationMessage, evaluateAlerts, messageAlertIds } from '../../shared/domain/alerts/evaluate';
import { createEngineSeriesSource } from '../../shared/domain/alerts/series-source';
import { withInvocationLogContext } from '../../shared/log';
import { processPartialResponse } from '../../shared/workers/batch';

function parse(body: string): EvaluationMessage {
  const m = JSON.parse(body) as Partial<EvaluationMessage>;
  const ids = [
    ...(Array.isArray(m.alertIds) ? m.alertIds : []),
    ...(m.alertId === undefined ? [] : [m.alertId]),
  ];
  if (
    typeof m.orgId !== 'string' ||
    typeof m.scheduledFor !== 'string' ||
    ids.length === 0 ||
    ids.some((id) => typeof id !== 'string')
  )
    throw new Error('malformed alert-evaluation message');
  const msg = m as EvaluationMessage;
  return { orgId: msg.orgId, alertIds: messageAlertIds(msg), scheduledFor: msg.scheduledFor };
}

/**
 * Consumer of `alert-evaluation`: each message names due alerts of one organisation that ask the
 * same queries (or one alert); partial batch failures, DLQ after retries.
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  // One source per invocation: alerts of the batch that ask the same queries share the reads.
  const source = createEngineSeriesSource();
  return processPartialResponse(
    event,
    (record) => evaluateAlerts(parse(record.body), { source, now: () => new Date() }),
    { failureMessage: 'alert evaluation failed' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
