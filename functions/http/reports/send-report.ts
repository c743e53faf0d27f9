import { sendReportNow } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { respond } from '../../../shared/http/responses';
import { enqueue } from '../../../shared/notify/queue';
import { sendReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params }) =>
  respond(202, await sendReportNow(principal, params.id, (m) => enqueue('report-delivery', m))),
);
