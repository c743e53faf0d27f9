import { sendTestNotification } from '../../../shared/domain/alerts/send-test';
import { httpRoute } from '../../../shared/http/handler';
import { sendBudgetAlertTest as def } from '../../../shared/routes/alerts';

export const handler = httpRoute(def, async ({ principal, body }) => sendTestNotification(principal, body));
