import { readTeamOperation } from '../../../shared/domain/teams/operations';
import { httpRoute } from '../../../shared/http/handler';
import { getTeamOperation as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) =>
  readTeamOperation(principal, params.id, params.operationId),
);
