import { readWidgetData } from '../../../shared/domain/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { getCostAlertWidgetData as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, params }) => readWidgetData(principal, params.id));
