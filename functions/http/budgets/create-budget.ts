import { createBudget } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { created } from '../../../shared/http/responses';
import { createBudget as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, body }) => {
  const budget = await createBudget(principal, body);
  return created(budget, { etag: `"${budget.versionNumber}"` });
});
