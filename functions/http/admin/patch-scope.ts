import { patchScope } from '../../../shared/domain/scopes/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { patchScope as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const scope = await patchScope(principal, params.id, body, headers['if-match']);
  return ok(scope, { etag: `"${scope.version}"` });
});
