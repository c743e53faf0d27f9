import { createDatasource } from '../../../shared/domain/datasources/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createDatasource as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createDatasource(principal, body)),
);
