import { updateBudget } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { updateBudget as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const budget = await updateBudget(principal, params.id, body, headers['if-match']);
  return ok(budget, { etag: `"${budget.versionNumber}"` });
});
