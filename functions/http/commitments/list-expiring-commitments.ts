import { expiringCommitments } from '../../../shared/domain/commitments/expiring';
import { httpRoute } from '../../../shared/http/handler';
import { listExpiringCommitments as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, query }) =>
  expiringCommitments(principal, Number(query.withinDays)),
);
