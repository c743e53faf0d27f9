import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import { DeliveryMessage, deliverRun } from '../../shared/domain/reports/delivery';
import { log } from '../../shared/log';
import { postSlackReport, sendReportEmail } from '../../shared/notify/report-senders';

const senders = { email: sendReportEmail, slack: postSlackReport };

/**
 * Renders and delivers report runs. Partial batch failures: a message whose delivery failed (any
 * destination) is retried alone, then reaches the DLQ; a malformed message is dropped with a log
 * line (retrying cannot fix it). (No shared batch helper in this tree: a small loop.)
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(record.body);
    } catch {
      parsed = undefined;
    }
    const msg = v.safeParse(DeliveryMessage, parsed);
    if (!msg.success) {
      log.error('malformed report-delivery message dropped', { messageId: record.messageId });
      continue;
    }
    try {
      const outcome = await deliverRun(msg.output, senders);
      log.info('report run', { reportId: msg.output.reportId, runAt: msg.output.runAt, ...outcome });
    } catch (error) {
      log.error('report run failed', { reportId: msg.output.reportId, runAt: msg.output.runAt, error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
