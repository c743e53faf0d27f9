import { listEnrichments } from '../../../shared/domain/enrichments/service';
import { httpRoute } from '../../../shared/http/handler';
import { listEnrichments as def } from '../../../shared/routes/enrichments';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listEnrichments(principal, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
);
