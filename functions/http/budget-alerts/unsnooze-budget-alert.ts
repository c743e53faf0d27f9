import { unsnoozeBudgetAlert } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { unsnoozeBudgetAlert as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, params, headers }) => {
  const { alert, version } = await unsnoozeBudgetAlert(principal, params.id, headers['if-match']);
  return ok(alert, { etag: `"${version}"` });
});
