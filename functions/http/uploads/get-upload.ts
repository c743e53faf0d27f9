import { readUpload } from '../../../shared/domain/uploads/uploads';
import { httpRoute } from '../../../shared/http/handler';
import { getUpload as def } from '../../../shared/routes/uploads';

export const handler = httpRoute(def, async ({ principal, params }) => readUpload(principal, params.id));
