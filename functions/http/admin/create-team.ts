import { createTeam } from '../../../shared/domain/teams/teams';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createTeam as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createTeam(principal, body)),
);
