import { updateVdim } from '../../../shared/domain/dimensions/vdims';
import { httpRoute } from '../../../shared/http/handler';
import { updateVdim as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  updateVdim(principal, params.id, body),
);
