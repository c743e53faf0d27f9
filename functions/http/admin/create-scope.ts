import { createScope } from '../../../shared/domain/scopes/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createScope as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createScope(principal, body)),
);
