import { listDashboardVersions } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { listDashboardVersions as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, params, query }) =>
  listDashboardVersions(principal, params.id, {
    limit: query.limit,
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
