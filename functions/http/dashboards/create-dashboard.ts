import { createDashboard } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createDashboard as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, body }) => {
  const dashboard = await createDashboard(principal, body);
  return created(dashboard, { etag: `"${dashboard.version}"` });
});
