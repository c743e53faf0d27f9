import { archiveDashboard } from '../../../shared/domain/dashboards/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { archiveDashboard as def } from '../../../shared/routes/dashboards';

export const handler = httpRoute(def, async ({ principal, params, headers }) => {
  const dashboard = await archiveDashboard(principal, params.id, headers['if-match']);
  return ok(dashboard, { etag: `"${dashboard.version}"` });
});
