import type { ScheduledEvent } from 'aws-lambda';
import { budgetSweepDeps, sweepDeps } from '../../shared/domain/alerts/adapters/sweep';
import { sweepDue, sweepDueAlerts } from '../../shared/domain/alerts/sweep';
import { budgetAlertKind } from '../../shared/domain/budgets/alerts/sweep';
import { orgFilterOf } from '../../shared/domain/common/sweep-filter';
import { withInvocationLogContext } from '../../shared/log';

/**
 * Enqueues every due alert (the due index, never a scan); archived and snoozed ones are skipped.
 * A `detail.orgIds` list (the local tick only; EventBridge sends `{}`) sweeps just those organisations.
 */
async function run(event: ScheduledEvent) {
  const time = event.time ? new Date(event.time) : new Date();
  const now = Number.isNaN(time.getTime()) ? new Date() : time;
  const only = orgFilterOf(event.detail);
  // Budget alerts are a second kind of the same sweep: their own due index, the same queue (docs/budgets.md).
  const [costs, budgets] = await Promise.all([
    sweepDueAlerts(now, sweepDeps(), only),
    sweepDue(now, budgetAlertKind(budgetSweepDeps()), only),
  ]);
  return { ...costs, budgetAlerts: budgets.enqueued };
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
