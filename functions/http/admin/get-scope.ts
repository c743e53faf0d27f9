import { readScope } from '../../../shared/domain/scopes/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getScope as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const scope = await readScope(principal, params.id);
  return ok(scope, { etag: `"${scope.version}"` });
});
