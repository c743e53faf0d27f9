import { listAlertsPage } from '../../../shared/domain/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { archivablePage } from '../../../shared/http/list-query';
import { listCostAlerts as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listAlertsPage(principal, archivablePage(query)),
);
