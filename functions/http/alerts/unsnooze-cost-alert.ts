import { unsnoozeAlert } from '../../../shared/domain/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { unsnoozeCostAlert as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, params, headers }) => {
  const { alert, version } = await unsnoozeAlert(principal, params.id, headers['if-match']);
  return ok(alert, { etag: `"${version}"` });
});
