import { listBudgetAlertsPage } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { archivablePage } from '../../../shared/http/list-query';
import { listBudgetAlerts as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listBudgetAlertsPage(principal, {
    ...archivablePage(query),
    ...(query.budgetId ? { budgetId: query.budgetId } : {}),
  }),
);
