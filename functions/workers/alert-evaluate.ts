import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type EvaluationMessage, evaluateAlert } from '../../shared/domain/alerts/evaluate';
import { createEngineSeriesSource } from '../../shared/domain/alerts/series-source';
import { withInvocationLogContext } from '../../shared/log';
import { processPartialResponse } from '../../shared/workers/batch';

function parse(body: string): EvaluationMessage {
  const m = JSON.parse(body) as Partial<EvaluationMessage>;
  if (typeof m.orgId !== 'string' || typeof m.alertId !== 'string' || typeof m.scheduledFor !== 'string')
    throw new Error('malformed alert-evaluation message');
  return m as EvaluationMessage;
}

/** Consumer of `alert-evaluation`: one alert per message, partial batch failures, DLQ after retries. */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  // One source per invocation: alerts of the batch that ask the same queries share the reads.
  const source = createEngineSeriesSource();
  return processPartialResponse(
    event,
    (record) => evaluateAlert(parse(record.body), { source, now: () => new Date() }),
    { failureMessage: 'alert evaluation failed' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
