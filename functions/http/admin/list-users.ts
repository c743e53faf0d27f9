import { listUsers } from '../../../shared/domain/admin/users';
import { httpRoute } from '../../../shared/http/handler';
import { listUsers as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listUsers(principal, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
);
