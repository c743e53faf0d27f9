import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import { DeliveryMessage, deliverRun } from '../../shared/domain/reports/delivery';
import { log, withInvocationLogContext } from '../../shared/log';
import { postSlackReport, sendReportEmail } from '../../shared/notify/report-senders';
import { processPartialResponse } from '../../shared/workers/batch';

const senders = { email: sendReportEmail, slack: postSlackReport };

/**
 * Renders and delivers report runs. Partial batch failures: a message whose delivery failed (any
 * destination) is retried alone, then reaches the DLQ. A malformed message fails the same way and
 * ends in the DLQ (whose alarm tells an operator), as in every other worker; it used to be dropped
 * with only a log line.
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  return processPartialResponse(
    event,
    async (record) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(record.body);
      } catch {
        parsed = undefined;
      }
      const msg = v.safeParse(DeliveryMessage, parsed);
      if (!msg.success) throw new Error('malformed report-delivery message');
      const outcome = await deliverRun(msg.output, senders);
      log.info('report run', { reportId: msg.output.reportId, runAt: msg.output.runAt, ...outcome });
    },
    { failureMessage: 'report run failed' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
