import { enqueue } from '../../../shared/cloud/queue';
import { sendReportNow } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { respond } from '../../../shared/http/responses';
import { QUEUE } from '../../../shared/queues';
import { sendReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params }) =>
  respond(202, await sendReportNow(principal, params.id, (m) => enqueue(QUEUE.reportDelivery, m))),
);
