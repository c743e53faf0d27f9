import { sendReportNow } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { respond } from '../../../shared/http/responses';
import { enqueueJson } from '../../../shared/notify/report-queue';
import { sendReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params }) =>
  respond(202, await sendReportNow(principal, params.id, (m) => enqueueJson('report-delivery', m))),
);
