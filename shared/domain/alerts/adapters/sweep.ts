import { enqueueMany } from '../../../cloud/queue';
import { advanceNextEvals, dueAlerts } from '../../../db/alerts-repo';
import { advanceBudgetAlerts, dueBudgetAlerts } from '../../../db/budget-alerts-repo';
import { DUE_SHARDS } from '../../../db/keys';
import type { StoredBudgetAlert } from '../../../model/budget-alerts';
import type { BudgetSweepDeps } from '../../budgets/alerts/sweep';
import type { EvaluationMessage } from '../evaluator';
import type { DueAlertIndex, DueIndex, Enqueue } from '../ports';
import type { SweepDeps } from '../sweep';

/** The sweep's adapters: the due index in DynamoDB and the `alert-evaluation` queue. */
export const dueAlertIndex: DueAlertIndex = { shards: DUE_SHARDS, due: dueAlerts, advance: advanceNextEvals };

export const evaluationQueue: Enqueue<EvaluationMessage> = (ms) => enqueueMany('alert-evaluation', ms);

export function sweepDeps(): SweepDeps {
  return { index: dueAlertIndex, send: evaluationQueue };
}

/** The budget alerts' due index in DynamoDB, a second index of the same sweep. */
export const dueBudgetAlertIndex: DueIndex<StoredBudgetAlert> = {
  shards: DUE_SHARDS,
  due: dueBudgetAlerts,
  advance: advanceBudgetAlerts,
};

export function budgetSweepDeps(): BudgetSweepDeps {
  return { index: dueBudgetAlertIndex, send: (ms) => enqueueMany('alert-evaluation', ms) };
}
