import { enqueueMany } from '../../../cloud/queue';
import { advanceNextEvals, dueAlerts } from '../../../db/alerts-repo';
import { DUE_SHARDS } from '../../../db/keys';
import type { EvaluationMessage } from '../evaluator';
import type { DueAlertIndex, Enqueue } from '../ports';
import type { SweepDeps } from '../sweep';

/** The sweep's adapters: the due index in DynamoDB and the `alert-evaluation` queue. */
export const dueAlertIndex: DueAlertIndex = { shards: DUE_SHARDS, due: dueAlerts, advance: advanceNextEvals };

export const evaluationQueue: Enqueue<EvaluationMessage> = (ms) => enqueueMany('alert-evaluation', ms);

export function sweepDeps(): SweepDeps {
  return { index: dueAlertIndex, send: evaluationQueue };
}
