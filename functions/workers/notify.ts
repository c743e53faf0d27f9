import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliveryStore } from '../../shared/domain/alerts/adapters/delivery';
import { deliverNotification } from '../../shared/domain/alerts/deliver';
import { parseNotification } from '../../shared/domain/alerts/notification';
import { webhookPolicy } from '../../shared/domain/alerts/service';
import { log, withInvocationLogContext } from '../../shared/log';
import { sendEmail } from '../../shared/notify/email';
import { sendSlack } from '../../shared/notify/slack';
import { sendTeams } from '../../shared/notify/teams';
import { processPartialResponse } from '../../shared/workers/batch';

const senders = {
  EMAIL: sendEmail,
  SLACK: sendSlack,
  TEAMS: (n: Parameters<typeof sendTeams>[0]) => sendTeams(n, webhookPolicy()),
};

/**
 * Consumer of `notifications`: each message is one rendered notification, delivered at most once
 * per notification id (see deliverNotification). A failure is reported for that message only
 * (partial batch response); SQS retries it and finally moves it to the DLQ, as it does a message
 * that cannot be parsed.
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  return processPartialResponse(
    event,
    async (record) => {
      const n = parseNotification(record.body);
      const outcome = await deliverNotification(n, { store: deliveryStore, senders });
      log.info('notification', { id: n.id, orgId: n.orgId, channel: n.channel, outcome });
    },
    { failureMessage: 'notification failed' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
