import { deleteVdim } from '../../../shared/domain/dimensions/vdims';
import { httpRoute } from '../../../shared/http/handler';
import { noContent } from '../../../shared/http/responses';
import { deleteVdim as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal, params }) => {
  await deleteVdim(principal, params.id);
  return noContent();
});
