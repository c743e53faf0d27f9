import { readVdim } from '../../../shared/domain/dimensions/vdims';
import { httpRoute } from '../../../shared/http/handler';
import { getVdim as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal, params }) => readVdim(principal, params.id));
