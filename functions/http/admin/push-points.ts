import { pushPoints } from '../../../shared/domain/datasources/service';
import { httpRoute } from '../../../shared/http/handler';
import { pushPoints as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  pushPoints(principal, params.id, body),
);
