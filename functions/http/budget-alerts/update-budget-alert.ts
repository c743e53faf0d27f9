import { updateBudgetAlert } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { updateBudgetAlert as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const { alert, version } = await updateBudgetAlert(principal, params.id, body, headers['if-match']);
  return ok(alert, { etag: `"${version}"` });
});
