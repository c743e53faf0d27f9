import { listVisibleDashboards } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { listDashboards as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listVisibleDashboards(principal, {
    limit: query.limit,
    includeArchived: query.includeArchived === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(query.teamId ? { teamId: query.teamId } : {}),
    ...(query.type ? { type: query.type } : {}),
    ...(query.name ? { name: query.name } : {}),
  }),
);
