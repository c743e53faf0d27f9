import type { Principal } from '../../auth/principal';
import { ShapedError } from '../../errors';
import { log } from '../../log';
import type { UsageMetric } from '../../warehouse/port';
import { getWarehouseQueries } from '../../warehouse/queries';

/**
 * The usage metrics of the caller's organisation: each `ConsumedUnit` found in its billing data
 * with the services that report it (sorted). A usage series takes one of these units as its
 * metric id. Any warehouse failure is the spec's 500 `{error: 'INTERNAL_SERVER_ERROR'}`.
 */
export async function listUsageMetrics(principal: Principal): Promise<UsageMetric[]> {
  try {
    return await (await getWarehouseQueries()).usageMetrics(principal.orgId);
  } catch (error) {
    log.error('usage metrics: warehouse query failed', { orgId: principal.orgId, error });
    throw new ShapedError(500, { error: 'INTERNAL_SERVER_ERROR' }, { cause: error });
  }
}
