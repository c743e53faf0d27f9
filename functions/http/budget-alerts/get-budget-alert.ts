import { readBudgetAlert } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getBudgetAlert as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const { alert, version } = await readBudgetAlert(principal, params.id);
  return ok(alert, { etag: `"${version}"` });
});
