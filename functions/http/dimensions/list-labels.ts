import { listLabels } from '../../../shared/domain/dimensions/service';
import { httpRoute } from '../../../shared/http/handler';
import { listLabels as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal }) => listLabels(principal));
