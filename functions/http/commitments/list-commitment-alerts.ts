import { listCommitmentAlerts } from '../../../shared/domain/commitments/alert-resource';
import { httpRoute } from '../../../shared/http/handler';
import { listCommitmentAlerts as def } from '../../../shared/routes/commitments';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listCommitmentAlerts(principal, {
    limit: query.limit,
    includeArchived: query.includeArchived === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
