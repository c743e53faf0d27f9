import { widgetData } from '../../../shared/domain/queries/service';
import { httpRoute } from '../../../shared/http/handler';
import { getWidgetData as def } from '../../../shared/routes/queries';

export const handler = httpRoute(def, async ({ principal, params }) =>
  widgetData(principal, params.id, params.key),
);
