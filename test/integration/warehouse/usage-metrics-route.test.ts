import { handler } from '../../../functions/http/queries/usage-metrics';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import type { WarehousePort } from '../../../shared/warehouse/port';
import { setWarehouse } from '../../../shared/warehouse/warehouse';
import { session } from '../../support/session';
import { authContext, invoke } from './http-support';

afterEach(() => setWarehouse(undefined));

describe('GET /queries/usage-metrics handler', () => {
  it('answers the organisation of the credential only', async () => {
    const port = new DuckDbWarehouse();
    const calls: string[] = [];
    setWarehouse(
      Object.assign(Object.create(port) as WarehousePort, {
        usageMetrics: async (orgId: string) => {
          calls.push(orgId);
          return [{ consumed_unit: 'Hours', service_names: ['EC2'] }];
        },
      }),
    );
    const res = await invoke(handler, await authContext(session().apiKeys.outsider), {
      path: '/queries/usage-metrics',
    });
    expect(res).toMatchObject({ status: 200, body: [{ consumed_unit: 'Hours', service_names: ['EC2'] }] });
    expect(calls).toEqual([session().otherOrgId]);
  });

  it('answers 500 INTERNAL_SERVER_ERROR (no detail) when the warehouse fails', async () => {
    const port = new DuckDbWarehouse();
    setWarehouse(
      Object.assign(Object.create(port) as WarehousePort, {
        usageMetrics: async () => {
          throw Object.assign(new Error('IO Error: Could not set lock on file "/x.duckdb"'), {
            code: 'ECONNREFUSED',
          });
        },
      }),
    );
    const res = await invoke(handler, await authContext(session().apiKeys.member), {
      path: '/queries/usage-metrics',
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'INTERNAL_SERVER_ERROR' });
  });
});
