import { deleteTeamFromRoute } from '../../../shared/domain/teams/operations';
import { httpRoute } from '../../../shared/http/handler';
import { respond } from '../../../shared/http/responses';
import { deleteTeam as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const result = await deleteTeamFromRoute(principal, params.id);
  return 'operationId' in result ? respond(202, result) : result;
});
