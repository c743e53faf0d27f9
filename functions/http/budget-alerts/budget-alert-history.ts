import { budgetAlertHistory } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { budgetAlertHistory as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, params, query }) =>
  budgetAlertHistory(principal, params.id, {
    limit: query.limit,
    ...(query.cursor ? { cursor: query.cursor } : {}),
  }),
);
