import { readTeam } from '../../../shared/domain/teams/teams';
import { httpRoute } from '../../../shared/http/handler';
import { getTeam as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => readTeam(principal, params.id));
