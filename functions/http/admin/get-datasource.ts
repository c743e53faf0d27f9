import { readDatasource } from '../../../shared/domain/datasources/service';
import { httpRoute } from '../../../shared/http/handler';
import { getDatasource as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => readDatasource(principal, params.id));
