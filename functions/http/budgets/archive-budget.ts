import { archiveBudget } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { archiveBudget as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, params, headers }) =>
  archiveBudget(principal, params.id, headers['if-match']),
);
