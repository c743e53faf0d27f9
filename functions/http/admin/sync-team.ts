import { routeSyncDeps } from '../../../shared/domain/teams/operations';
import { syncTeam } from '../../../shared/domain/teams/sync';
import { httpRoute } from '../../../shared/http/handler';
import { respond } from '../../../shared/http/responses';
import { syncTeam as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, body }) => {
  const result = await syncTeam(principal, params.id, body, routeSyncDeps());
  return 'syncId' in result ? respond(202, result) : result;
});
