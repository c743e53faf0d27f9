import { patchScope } from '../../../shared/domain/scopes/service';
import { httpRoute } from '../../../shared/http/handler';
import { patchScope as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  patchScope(principal, params.id, body),
);
