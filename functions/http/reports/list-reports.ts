import { listVisibleReports } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { archivablePage } from '../../../shared/http/list-query';
import { listReports as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listVisibleReports(principal, {
    ...archivablePage(query),
    ...(query.teamId ? { teamId: query.teamId } : {}),
    ...(query.type ? { type: query.type } : {}),
  }),
);
