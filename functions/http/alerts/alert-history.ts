import { alertHistory } from '../../../shared/domain/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { costAlertHistory as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, params, query }) =>
  alertHistory(principal, params.id, {
    limit: query.limit,
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
