import { suggestBudget } from '../../../shared/domain/budgets/suggest';
import { httpRoute } from '../../../shared/http/handler';
import { suggestBudget as def } from '../../../shared/routes/budgets';

export const handler = httpRoute(def, async ({ principal, body }) => suggestBudget(principal, body));
