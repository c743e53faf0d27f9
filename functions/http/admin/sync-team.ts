import { syncTeam } from '../../../shared/domain/teams/sync';
import { httpRoute } from '../../../shared/http/handler';
import { syncTeam as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  syncTeam(principal, params.id, body),
);
