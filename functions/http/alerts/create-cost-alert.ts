import { createAlert } from '../../../shared/domain/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createCostAlert as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createAlert(principal, body), { etag: '"1"' }),
);
