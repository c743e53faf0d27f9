import * as v from 'valibot';
import { type Area, declare } from './declare';

/** Response schema, for the OpenAPI document. */
export const UsageMetricsResponse = v.array(
  v.object({ consumed_unit: v.string(), service_names: v.array(v.string()) }),
);

const AREA: Area = { tag: 'Usage metrics', folder: 'queries' };

export const listUsageMetrics = declare(AREA, 'GET /queries/usage-metrics', 'listUsageMetrics', {
  entry: 'usage-metrics',
  auth: 'member',
  summary: 'Consumed units with the services that report them (the usage series metric ids)',
  response: UsageMetricsResponse,
  usesWarehouse: true,
  timeoutSeconds: 29,
});

export const usageRoutes = [listUsageMetrics];
