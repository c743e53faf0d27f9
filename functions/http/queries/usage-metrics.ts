import { listUsageMetrics } from '../../../shared/domain/usage/usage-metrics';
import { httpRoute } from '../../../shared/http/handler';
import { listUsageMetrics as def } from '../../../shared/routes/usage';

export const handler = httpRoute(def, async ({ principal }) => listUsageMetrics(principal));
