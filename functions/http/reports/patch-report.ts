import { patchReport } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { patchReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const report = await patchReport(principal, params.id, body, headers['if-match']);
  return ok(report, { etag: `"${report.version}"` });
});
