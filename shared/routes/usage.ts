import * as v from 'valibot';
import { route } from '../http/route';

/** Response schema, for the OpenAPI document. */
export const UsageMetricsResponse = v.array(
  v.object({ consumed_unit: v.string(), service_names: v.array(v.string()) }),
);

export const listUsageMetrics = route({
  id: 'listUsageMetrics',
  method: 'GET',
  path: '/queries/usage-metrics',
  entry: 'queries/usage-metrics',
  auth: 'member',
  tag: 'Usage metrics',
  summary: 'Consumed units with the services that report them (the usage series metric ids)',
  response: UsageMetricsResponse,
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const usageRoutes = [listUsageMetrics];
