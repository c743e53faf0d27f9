import { listReportDeliveries } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { listReportDeliveries as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params, query }) =>
  listReportDeliveries(principal, params.id, {
    limit: query.limit,
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
