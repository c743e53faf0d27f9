import type { StoredBudgetAlert } from '../../../model/budget-alerts';
import type { DueIndex, Enqueue } from '../../alerts/ports';
import { nextEvaluationAt } from '../../alerts/schedule';
import type { SweepKind } from '../../alerts/sweep';
import { type BudgetEvaluationMessage, MAX_BUDGET_ALERTS_PER_MESSAGE } from './evaluate';

export interface BudgetSweepDeps {
  index: DueIndex<StoredBudgetAlert>;
  /** Sends evaluation messages on `alert-evaluation`. */
  send: Enqueue<BudgetEvaluationMessage>;
}

/**
 * The budget alerts as a kind of the alert sweep (`sweepDue`, shared/domain/alerts/sweep.ts): due
 * daily at 06:00 UTC after the billing data's cut-off, taken off their own due index, grouped by
 * organisation, `MAX_BUDGET_ALERTS_PER_MESSAGE` a message. A snoozed budget alert is still sent:
 * its evaluation is recorded and notifies nothing (docs/budgets.md).
 */
export function budgetAlertKind(
  deps: BudgetSweepDeps,
): SweepKind<StoredBudgetAlert, BudgetEvaluationMessage> {
  return {
    ...deps,
    next: (_alert, now) => nextEvaluationAt('DAILY', now),
    groupKey: (alert) => alert.organizationId,
    perMessage: MAX_BUDGET_ALERTS_PER_MESSAGE,
    message: (orgId, budgetAlertIds, scheduledFor) => ({
      kind: 'budget',
      orgId,
      budgetAlertIds,
      scheduledFor,
    }),
    skipSnoozed: false,
  };
}
