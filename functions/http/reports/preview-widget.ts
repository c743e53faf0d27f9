import { previewWidget } from '../../../shared/domain/reports/preview';
import { httpRoute } from '../../../shared/http/handler';
import { previewReportWidget as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, body }) => previewWidget(principal, body));
