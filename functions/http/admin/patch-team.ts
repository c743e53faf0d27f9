import { patchTeam } from '../../../shared/domain/teams/teams';
import { httpRoute } from '../../../shared/http/handler';
import { patchTeam as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  patchTeam(principal, params.id, body),
);
