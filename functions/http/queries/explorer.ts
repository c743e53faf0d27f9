import { explore } from '../../../shared/domain/queries/service';
import { httpRoute } from '../../../shared/http/handler';
import { runExplorer as def } from '../../../shared/routes/queries';

export const handler = httpRoute(def, async ({ principal, body }) => explore(principal, body));
