import { deleteScope } from '../../../shared/domain/scopes/service';
import { httpRoute } from '../../../shared/http/handler';
import { deleteScope as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => deleteScope(principal, params.id));
