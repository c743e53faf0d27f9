import { archiveDatasource } from '../../../shared/domain/datasources/service';
import { httpRoute } from '../../../shared/http/handler';
import { archiveDatasource as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) =>
  archiveDatasource(principal, params.id),
);
