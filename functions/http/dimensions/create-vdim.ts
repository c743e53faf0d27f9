import { createVdim } from '../../../shared/domain/dimensions/vdims';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createVdim as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createVdim(principal, body)),
);
