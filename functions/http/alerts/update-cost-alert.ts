import { updateAlert } from '../../../shared/domain/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { updateCostAlert as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const { alert, version } = await updateAlert(principal, params.id, body, headers['if-match']);
  return ok(alert, { etag: `"${version}"` });
});
