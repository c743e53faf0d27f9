import { listOrgBudgets } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { listBudgets as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, query }) =>
  listOrgBudgets(principal, {
    limit: query.limit,
    cursor: query.cursor,
    archived: query.archived === 'true',
  }),
);
