import { readDashboard } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getDashboard as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const dashboard = await readDashboard(principal, params.id);
  return ok(dashboard, { etag: `"${dashboard.version}"` });
});
