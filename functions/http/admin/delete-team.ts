import { deleteTeam } from '../../../shared/domain/teams/teams';
import { httpRoute } from '../../../shared/http/handler';
import { deleteTeam as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => deleteTeam(principal, params.id));
