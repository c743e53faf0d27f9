import { prefetchReport, readReport } from '../../../shared/domain/reports/service';
import { httpRouteWithPrefetch } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getReport as def } from '../../../shared/routes/reports';

export const handler = httpRouteWithPrefetch(
  def,
  ({ orgId, params }) => prefetchReport(orgId, params.id),
  async ({ principal, params, prefetched }) => {
    const report = await readReport(principal, params.id, prefetched);
    return ok(report, { etag: `"${report.version}"` });
  },
);
