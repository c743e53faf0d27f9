import { listVdims } from '../../../shared/domain/dimensions/vdims';
import { httpRoute } from '../../../shared/http/handler';
import { listVdims as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal }) => listVdims(principal));
