import { createReport, upgradeCreateBody } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { CreateReportBody } from '../../../shared/model/report-schemas';
import { createReport as def } from '../../../shared/routes/reports';
import { parseOrThrow } from '../../../shared/validation';

export const handler = httpRoute(def, async ({ principal, body }) => {
  const input = parseOrThrow(CreateReportBody, upgradeCreateBody(body), 'detailed', 'body');
  return created(await createReport(principal, input));
});
