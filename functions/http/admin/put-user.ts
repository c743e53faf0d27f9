import { putUser } from '../../../shared/domain/admin/users';
import { httpRoute } from '../../../shared/http/handler';
import { putUser as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  putUser(principal, params.id, body),
);
