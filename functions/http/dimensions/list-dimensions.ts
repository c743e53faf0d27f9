import { freshnessHeaders, listDimensions } from '../../../shared/domain/dimensions/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { listDimensions as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal }) => {
  const { dimensions, status } = await listDimensions(principal);
  return ok(dimensions, freshnessHeaders(status));
});
