import { listScopes } from '../../../shared/domain/scopes/service';
import { httpRoute } from '../../../shared/http/handler';
import { listScopes as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listScopes(principal, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
);
