import { loadBudget } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { getBudget as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const budget = await loadBudget(principal, params.id);
  return ok(budget, { etag: `"${budget.versionNumber}"` });
});
