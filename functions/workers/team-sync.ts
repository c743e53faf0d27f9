import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseTeamOperationMessage, runTeamOperation } from '../../shared/domain/teams/operations';
import { log, withInvocationLogContext } from '../../shared/log';
import { QUEUE, queues } from '../../shared/queues';
import { processPartialResponse } from '../../shared/workers/batch';

const MAX_RECEIVES = queues.find((q) => q.name === QUEUE.teamOperations)?.maxReceiveCount ?? 1;

/**
 * Consumer of `team-operations`: team syncs past one transaction and deletes of large teams,
 * handed off by their routes. Each message runs on its own; a failure is reported for that
 * message only (partial batch response), so SQS retries it and finally moves it to the DLQ. On
 * the last delivery an unexpected failure is recorded on the operation (FAILED) before that.
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  return processPartialResponse(
    event,
    async (record) => {
      const message = parseTeamOperationMessage(record.body);
      const receives = Number(record.attributes?.ApproximateReceiveCount ?? '1');
      const status = await runTeamOperation(message, {
        now: () => new Date(),
        lastAttempt: receives >= MAX_RECEIVES,
      });
      log.info('team operation message handled', { messageId: record.messageId, ...message, status });
    },
    { failureMessage: 'team operation message failed' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
