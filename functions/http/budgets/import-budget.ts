import { importBudgetCsv } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { ok } from '../../../shared/http/responses';
import { importBudget as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, params, body, headers }) => {
  const budget = await importBudgetCsv(principal, params.id, body, headers['if-match']);
  return ok(budget, { etag: `"${budget.versionNumber}"` });
});
