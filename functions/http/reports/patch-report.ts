import { patchReport } from '../../../shared/domain/reports/service';
import { readDeferredBody } from '../../../shared/http/body';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { patchReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params, headers, event }) => {
  const report = await patchReport(principal, params.id, readDeferredBody(def, event), headers['if-match']);
  return ok(report, { etag: `"${report.version}"` });
});
