import { listTeams } from '../../../shared/domain/teams/teams';
import { httpRoute } from '../../../shared/http/handler';
import { listTeams as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listTeams(principal, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
);
