import { requestRestore } from '../../../shared/domain/uploads/uploads';
import { httpRoute } from '../../../shared/http/handler';
import { restoreUpload as def } from '../../../shared/routes/uploads';

export const handler = httpRoute(def, async ({ principal, params }) =>
  requestRestore(principal, params.id, new Date()),
);
