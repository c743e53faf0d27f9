import { listKeys } from '../../../shared/domain/apikeys/service';
import { httpRoute } from '../../../shared/http/handler';
import { listApiKeys as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listKeys(principal, {
    limit: query.limit,
    mine: query.mine === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
