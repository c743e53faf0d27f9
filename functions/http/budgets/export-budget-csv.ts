import { exportBudgetCsv } from '../../../shared/domain/budgets/service';
import { httpRoute } from '../../../shared/http/handler';
import { text } from '../../../shared/http/responses';
import { exportBudgetCsv as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, params }) => {
  const { csv } = await exportBudgetCsv(principal, params.id);
  return text(csv, 'text/csv; charset=utf-8', {
    'content-disposition': `attachment; filename="${params.id}.csv"`,
  });
});
