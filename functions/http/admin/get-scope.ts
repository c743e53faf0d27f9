import { readScope } from '../../../shared/domain/scopes/service';
import { httpRoute } from '../../../shared/http/handler';
import { getScope as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => readScope(principal, params.id));
