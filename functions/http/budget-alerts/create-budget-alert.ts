import { createBudgetAlert } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createBudgetAlert as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, body }) =>
  created(await createBudgetAlert(principal, body), { etag: '"1"' }),
);
