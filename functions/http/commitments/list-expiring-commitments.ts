import { expiringCommitments } from '../../../shared/domain/commitments/service';
import { httpRoute } from '../../../shared/http/handler';
import { listExpiringCommitments as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, query }) =>
  expiringCommitments(principal, Number(query.withinDays)),
);
