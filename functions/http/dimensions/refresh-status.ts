import { freshnessHeaders, publicStatus, refreshStatusOf } from '../../../shared/domain/dimensions/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getRefreshStatus as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal }) => {
  const status = await refreshStatusOf(principal.orgId);
  return ok(publicStatus(status), freshnessHeaders(status));
});
