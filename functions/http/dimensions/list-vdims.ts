import { listVdims } from '../../../shared/domain/dimensions/vdims';
import { httpRoute } from '../../../shared/http/handler';
import { listVdims as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listVdims(principal, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
);
