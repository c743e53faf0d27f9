import { listUploadRecords } from '../../../shared/domain/uploads/uploads';
import { httpRoute } from '../../../shared/http/handler';
import { listUploads as def } from '../../../shared/routes/uploads';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listUploadRecords(principal, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }),
);
