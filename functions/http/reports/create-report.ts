import { createReport } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createReport(principal, body)),
);
