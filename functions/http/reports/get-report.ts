import { readReport } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const report = await readReport(principal, params.id);
  return ok(report, { etag: `"${report.version}"` });
});
