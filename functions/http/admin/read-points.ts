import { readPoints } from '../../../shared/domain/datasources/service';
import { httpRoute } from '../../../shared/http/handler';
import { readPoints as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, query }) =>
  readPoints(principal, params.id, {
    from: query.from,
    to: query.to,
    granularity: query.granularity,
    aggregator: query.aggregator,
    ...(query.metric ? { metric: query.metric } : {}),
  }),
);
