import { listDatasources } from '../../../shared/domain/datasources/service';
import { httpRoute } from '../../../shared/http/handler';
import { listDatasources as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listDatasources(principal, {
    limit: query.limit,
    includeArchived: query.includeArchived === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
