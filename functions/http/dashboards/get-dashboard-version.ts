import { readDashboardVersion } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { getDashboardVersion as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, params }) =>
  readDashboardVersion(principal, params.id, params.n),
);
