import { randomUUID } from 'node:crypto';
import { createDashboard, publishDashboard } from '../../../shared/domain/dashboards/service';
import { createDatasource } from '../../../shared/domain/datasources/service';
import type { WarehouseQueries } from '../../../shared/warehouse/port';
import { setWarehouseQueries } from '../../../shared/warehouse/queries';
import { simpleWidget } from '../../fixtures/dashboards/realistic';
import { adminOf } from '../../support/principals';

// The save-time metric check reads the warehouse only for a metricId that is not a datasource, and
// a warehouse failure then is a 503 that writes nothing.

const metric = (metricId: string) => ({
  type: 'metric',
  name: 'm',
  colorIndex: 0,
  chartType: 'LINE',
  metricId,
  aggregator: 'SUM',
});

/** A warehouse port that counts usage-metric reads and answers `units`, or fails. */
function fakeWarehouse(units: string[] | Error) {
  const calls = { usageMetrics: 0 };
  const port = {
    kind: 'duckdb',
    async usageMetrics() {
      calls.usageMetrics++;
      if (units instanceof Error) throw units;
      return units.map((u) => ({ consumed_unit: u, service_names: ['S'] }));
    },
  } as unknown as WarehouseQueries;
  return { port, calls };
}

afterEach(() => setWarehouseQueries(undefined));

describe('dashboard metric check and the warehouse', () => {
  it('never reads the warehouse for dashboards without metric queries or whose metric queries name datasources', async () => {
    const p = adminOf(`org_it_${randomUUID().slice(0, 8)}`);
    const { port, calls } = fakeWarehouse(new Error('warehouse down'));
    setWarehouseQueries(port);
    const ds = await createDatasource(p, { name: 'requests', description: '', unit: null });
    const d = await createDashboard(p, { name: 'plain', widgets: [simpleWidget('w')] });
    await publishDashboard(p, d.id, {
      name: 'plain',
      version: d.version,
      widgets: [
        simpleWidget('w', {
          queries: [metric(ds.id), metric(`${ds.id}/hits`)].map((q, i) => ({ ...q, name: `m${i}` })),
        }),
      ],
    });
    expect(calls.usageMetrics).toBe(0);
  });

  it('reads the usage metrics once for a metricId that is not a datasource', async () => {
    const p = adminOf(`org_it_${randomUUID().slice(0, 8)}`);
    const { port, calls } = fakeWarehouse(['Hours', 'GB-Mo']);
    setWarehouseQueries(port);
    const queries = ['Hours', 'GB-Mo', 'Hours'].map((id, i) => ({ ...metric(id), name: `m${i}` }));
    await expect(
      createDashboard(p, { name: 'usage', widgets: [simpleWidget('w', { queries })] }),
    ).resolves.toMatchObject({
      widgetCount: 1,
    });
    expect(calls.usageMetrics).toBe(1);
    await expect(
      createDashboard(p, { name: 'bad', widgets: [simpleWidget('w', { queries: [metric('Minutes')] })] }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('answers 503 WAREHOUSE_UNAVAILABLE when the warehouse fails, and writes nothing', async () => {
    const p = adminOf(`org_it_${randomUUID().slice(0, 8)}`);
    setWarehouseQueries(fakeWarehouse(new Error('athena down')).port);
    const error = await createDashboard(p, {
      name: 'down',
      widgets: [simpleWidget('w', { queries: [metric('Hours')] })],
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, message: 'WAREHOUSE_UNAVAILABLE' });
    const { listDashboards } = await import('../../../shared/db/dashboards-repo');
    const page = await listDashboards(p.orgId, { includeArchived: true }, 10);
    expect(page.items).toEqual([]);
  });
});
