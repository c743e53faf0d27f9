import { listDatasources } from '../../../shared/domain/datasources/service';
import { httpRoute } from '../../../shared/http/handler';
import { archivablePage } from '../../../shared/http/list-query';
import { listDatasources as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listDatasources(principal, archivablePage(query)),
);
