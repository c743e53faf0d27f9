import { listVisibleDashboards } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { archivablePage } from '../../../shared/http/list-query';
import { listDashboards as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listVisibleDashboards(principal, {
    ...archivablePage(query),
    ...(query.teamId ? { teamId: query.teamId } : {}),
    ...(query.type ? { type: query.type } : {}),
    ...(query.name ? { name: query.name } : {}),
  }),
);
