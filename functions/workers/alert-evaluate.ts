import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { evaluatorDeps } from '../../shared/domain/alerts/adapters/evaluate';
import {
  type EvaluationMessage,
  evaluateMessages,
  messageAlertIds,
} from '../../shared/domain/alerts/evaluator';
import {
  type BudgetEvaluationMessage,
  evaluateBudgetAlerts,
  isBudgetEvaluationMessage,
} from '../../shared/domain/budgets/alerts/evaluate';
import {
  type BudgetTestMessage,
  isBudgetTestMessage,
  sendBudgetTest,
} from '../../shared/domain/budgets/alerts/send-test';
import { withInvocationLogContext } from '../../shared/log';
import { processPartialResponse } from '../../shared/workers/batch';

function parse(body: string): EvaluationMessage | BudgetEvaluationMessage | BudgetTestMessage {
  const m = JSON.parse(body) as Partial<EvaluationMessage>;
  if (isBudgetEvaluationMessage(m) || isBudgetTestMessage(m)) return m;
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
 * same queries (or one alert). The whole batch is evaluated together (`evaluateMessages`: one
 * BatchGet, one read per distinct query set, batched writes); failures stay per message (partial
 * batch failures; a malformed message fails alone and ends in the DLQ after retries).
 */
async function run(event: SQSEvent): Promise<SQSBatchResponse> {
  const parsed = event.Records.map((record) => {
    try {
      return parse(record.body);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  });
  const valid = parsed.filter((m): m is EvaluationMessage => !(m instanceof Error));
  // The composition root: the adapters of the evaluator's ports, one series source for the
  // invocation (alerts of the batch that ask the same queries share the reads).
  const outcomes = evaluateMessages(valid, evaluatorDeps());
  outcomes.catch(() => undefined); // awaited below, once per record
  return processPartialResponse(
    event,
    async (_record, { index }) => {
      const msg = parsed[index]!;
      if (msg instanceof Error) throw msg;
      if (isBudgetTestMessage(msg)) return sendBudgetTest(msg);
      if (isBudgetEvaluationMessage(msg))
        return void (await evaluateBudgetAlerts(msg, { now: () => new Date() }));
      const outcome = (await outcomes)[valid.indexOf(msg)]!;
      if (!outcome.ok) throw outcome.error;
    },
    { failureMessage: 'alert evaluation failed' },
  );
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
