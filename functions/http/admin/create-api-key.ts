import { createKey } from '../../../shared/domain/apikeys/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createApiKey as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createKey(principal, body)),
);
