import { enqueueMany } from '../../../cloud/queue';
import { config } from '../../../config';
import { claimDedup, getAlerts, getThresholdsOf, putEvaluations } from '../../../db/alerts-repo';
import { claimCommitmentExpiry, listCommitmentExpiryClaims } from '../../../db/commitment-expiry-repo';
import { getOrganizationTimezone } from '../../../db/organizations-repo';
import { expiringCommitmentSource } from '../../commitments/expiring';
import { type ExpiryDeps, evaluateCommitmentExpiry } from '../../commitments/expiry-alert';
import type { EvaluateDeps } from '../evaluator';
import type { Notification } from '../notification';
import type { Enqueue, EvaluationStore } from '../ports';
import { createEngineRootCauses } from '../root-cause-source';
import { createEngineSeriesSource } from '../series-source';

/**
 * The evaluator's adapters: DynamoDB repositories, the `notifications` queue and the query engine
 * (series and root causes). `functions/workers/alert-evaluate.ts` passes `evaluatorDeps()` in.
 */
export const evaluationStore: EvaluationStore = {
  getAlerts,
  getThresholdsOf,
  organizationTimezone: getOrganizationTimezone,
  claimDedup,
  putEvaluations,
};

export const notificationQueue: Enqueue<Notification> = (ns) => enqueueMany('notifications', ns);

/** The expiring-commitment alerts' dependencies: the warehouse, their claims, the `notifications` queue. */
export function expiryDeps(): ExpiryDeps {
  return {
    source: expiringCommitmentSource,
    claims: { claimed: listCommitmentExpiryClaims, claim: claimCommitmentExpiry },
    enqueue: async (n) => {
      const [error] = await notificationQueue([n]);
      if (error) throw error;
    },
    appUrl: config().consoleBaseUrl,
  };
}

/** The evaluator's dependencies for one worker invocation (one series source: shared reads). */
export function evaluatorDeps(now: () => Date = () => new Date()): EvaluateDeps {
  return {
    source: createEngineSeriesSource(),
    store: evaluationStore,
    enqueueNotifications: notificationQueue,
    rootCauses: createEngineRootCauses(),
    kinds: { COMMITMENT_EXPIRY: (alert, at) => evaluateCommitmentExpiry(alert, expiryDeps(), at) },
    now,
  };
}
