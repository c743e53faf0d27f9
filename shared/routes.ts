import type { RouteDef } from './http/route';
import { adminRoutes } from './routes/admin';
import { fxRoutes } from './routes/admin-fx';
import { alertRoutes } from './routes/alerts';
import { budgetAlertRoutes } from './routes/budget-alerts';
import { budgetRoutes } from './routes/budgets';
import { commitmentRoutes } from './routes/commitments';
import { dashboardRoutes } from './routes/dashboards';
import { dimensionRoutes } from './routes/dimensions';
import { enrichmentRoutes } from './routes/enrichments';
import { queryRoutes } from './routes/queries';
import { reportRoutes } from './routes/reports';
import { uploadRoutes } from './routes/uploads';
import { usageRoutes } from './routes/usage';

/**
 * The route manifest: every HTTP route of the service. The CDK stack creates one Lambda per entry
 * from it, the local server dispatches with it and the OpenAPI document is generated from it.
 * Each area keeps its routes in `shared/routes/<area>.ts`; add the area's list here.
 */
export const routes: readonly RouteDef[] = [
  ...reportRoutes,
  ...enrichmentRoutes,
  ...dashboardRoutes,
  ...adminRoutes,
  ...fxRoutes,
  ...usageRoutes,
  ...dimensionRoutes,
  ...queryRoutes,
  ...alertRoutes,
  ...uploadRoutes,
  ...budgetRoutes,
  ...commitmentRoutes,
  ...budgetAlertRoutes,
];
