import { listBudgetAlertsPage } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { listBudgetAlerts as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listBudgetAlertsPage(principal, {
    limit: query.limit,
    includeArchived: query.includeArchived === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(query.budgetId ? { budgetId: query.budgetId } : {}),
  }),
);
