import { listAlertsPage } from '../../../shared/domain/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { listCostAlerts as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listAlertsPage(principal, {
    limit: query.limit,
    includeArchived: query.includeArchived === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
