import { listVisibleReports } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { listReports as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listVisibleReports(principal, {
    limit: query.limit,
    includeArchived: query.includeArchived === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(query.teamId ? { teamId: query.teamId } : {}),
    ...(query.type ? { type: query.type } : {}),
  }),
);
