import { snoozeBudgetAlert } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { snoozeBudgetAlert as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const { alert, version } = await snoozeBudgetAlert(principal, params.id, body.until, headers['if-match']);
  return ok(alert, { etag: `"${version}"` });
});
