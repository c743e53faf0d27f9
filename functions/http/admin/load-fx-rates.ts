import { loadRatesAs } from '../../../shared/domain/fx/admin';
import { httpRoute } from '../../../shared/http/handler';
import { loadFxRates as def } from '../../../shared/routes/admin-fx';

export const handler = httpRoute(def, async ({ principal, body }) => loadRatesAs(principal, body));
