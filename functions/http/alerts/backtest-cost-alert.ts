import { backtestAlert } from '../../../shared/domain/alerts/backtest';
import { httpRoute } from '../../../shared/http/handler';
import { backtestCostAlert as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, body }) => backtestAlert(principal, body));
