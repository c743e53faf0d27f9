import { listVersions } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { listBudgetVersions as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, params, query }) =>
  listVersions(principal, params.id, { limit: query.limit, cursor: query.cursor }),
);
