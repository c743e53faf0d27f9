import { archiveBudgetAlert } from '../../../shared/domain/budgets/alerts/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { archiveBudgetAlert as def } from '../../../shared/routes/budget-alerts';

export const handler = httpRoute(def, async ({ principal, params, headers }) => {
  const { alert, version } = await archiveBudgetAlert(principal, params.id, headers['if-match']);
  return ok(alert, { etag: `"${version}"` });
});
