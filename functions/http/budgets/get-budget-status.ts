import { budgetStatus } from '../../../shared/domain/budgets/status';
import { httpRoute } from '../../../shared/http/handler';
import { getBudgetStatus as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, params, query }) =>
  budgetStatus(principal, params.id, query.month),
);
