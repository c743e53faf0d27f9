import { patchDashboard } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { patchDashboard as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const dashboard = await patchDashboard(principal, params.id, body, headers['if-match']);
  return ok(dashboard, { etag: `"${dashboard.version}"` });
});
