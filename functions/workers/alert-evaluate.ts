import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type EvaluationMessage, evaluateAlert } from '../../shared/domain/alerts/evaluate';
import { engineSeriesSource } from '../../shared/domain/alerts/series-source';
import { log } from '../../shared/log';

function parse(body: string): EvaluationMessage {
  const m = JSON.parse(body) as Partial<EvaluationMessage>;
  if (typeof m.orgId !== 'string' || typeof m.alertId !== 'string' || typeof m.scheduledFor !== 'string')
    throw new Error('malformed alert-evaluation message');
  return m as EvaluationMessage;
}

/** Consumer of `alert-evaluation`: one alert per message, partial batch failures, DLQ after retries. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await evaluateAlert(parse(record.body), { source: engineSeriesSource, now: () => new Date() });
    } catch (error) {
      log.error('alert evaluation failed', { messageId: record.messageId, error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
