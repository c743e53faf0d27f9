import { enqueueMany } from '../../cloud/queue';
import {
  advanceNextEvals,
  claimDedup,
  dueAlerts,
  getAlerts,
  getThresholdsOf,
  putEvaluations,
} from '../../db/alerts-repo';
import { DUE_SHARDS } from '../../db/keys';
import { claimDelivery, finishDelivery } from '../../db/notifications-repo';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import type { EvaluateDeps, EvaluationMessage } from './evaluator';
import type { Notification } from './notification';
import type { DeliveryStore, DueAlertIndex, Enqueue, EvaluationStore } from './ports';
import { createEngineRootCauses } from './root-cause-source';
import { createEngineSeriesSource } from './series-source';
import type { SweepDeps } from './sweep';

/**
 * The production adapters of the alert ports (`ports.ts`): DynamoDB repositories, SQS queues and
 * the query engine. The workers are the composition root: each calls the factory of what it runs
 * and passes the result in (docs/architecture.md, "Dependencies of the domain"). This module is the
 * one place of the alert domain that imports storage and queues.
 */

export const evaluationStore: EvaluationStore = {
  getAlerts,
  getThresholdsOf,
  organizationTimezone: getOrganizationTimezone,
  claimDedup,
  putEvaluations,
};

export const dueAlertIndex: DueAlertIndex = {
  shards: DUE_SHARDS,
  due: dueAlerts,
  advance: advanceNextEvals,
};

export const deliveryStore: DeliveryStore = { claim: claimDelivery, finish: finishDelivery };

export const notificationQueue: Enqueue<Notification> = (ns) => enqueueMany('notifications', ns);
export const evaluationQueue: Enqueue<EvaluationMessage> = (ms) => enqueueMany('alert-evaluation', ms);

/** The evaluator's dependencies for one worker invocation (one series source: shared reads). */
export function evaluatorDeps(now: () => Date = () => new Date()): EvaluateDeps {
  return {
    source: createEngineSeriesSource(),
    store: evaluationStore,
    enqueueNotifications: notificationQueue,
    rootCauses: createEngineRootCauses(),
    now,
  };
}

/** The sweep's dependencies: the due index and the `alert-evaluation` queue. */
export function sweepDeps(): SweepDeps {
  return { index: dueAlertIndex, send: evaluationQueue };
}
