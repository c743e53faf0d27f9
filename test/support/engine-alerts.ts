import type { Principal } from '../../shared/auth/principal';
import { evaluationStore } from '../../shared/domain/alerts/adapters/evaluate';
import { evaluateAlert } from '../../shared/domain/alerts/evaluator';
import type { Notification } from '../../shared/domain/alerts/notification';
import { CreateAlertBody } from '../../shared/domain/alerts/schemas';
import { createEngineSeriesSource } from '../../shared/domain/alerts/series-source';
import { createAlert } from '../../shared/domain/alerts/service';
import { parseOrThrow } from '../../shared/validation';
import { conditionBody } from '../unit/alerts/fixtures';

/**
 * Condition alerts evaluated by the alert evaluator through the query engine (the warehouse the
 * suite ingested into), with the notifications caught instead of queued.
 */

/** Makes condition alerts over `queries` (the fixture's body otherwise), created at `at`. */
export function conditionAlertMaker(principal: Principal, queries: unknown[], at: Date) {
  return (name: string, condition: string) =>
    createAlert(
      principal,
      parseOrThrow(CreateAlertBody, conditionBody({ name, condition, queries }), 'plain', 'body'),
      at,
    );
}

/** Evaluates the alerts as the sweep's message at `now` would: their results and what they notified. */
export async function evaluateOnEngine(orgId: string, alertIds: readonly string[], now: Date) {
  const notes: Notification[] = [];
  const deps = {
    source: createEngineSeriesSource(),
    store: evaluationStore,
    now: () => now,
    enqueueNotifications: async (items: readonly Notification[]) => {
      notes.push(...items);
      return items.map(() => null);
    },
  };
  const results = await Promise.all(
    alertIds.map((alertId) => evaluateAlert({ orgId, alertId, scheduledFor: now.toISOString() }, deps)),
  );
  return { results, notes };
}
