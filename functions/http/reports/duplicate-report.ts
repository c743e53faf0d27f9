import { duplicateReport } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { duplicateReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params, body }) =>
  created(await duplicateReport(principal, params.id, body.name)),
);
